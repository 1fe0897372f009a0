#include "model/coll_sampling.hpp"

namespace linkscope::model {

CollSampling coll_sampling(const Config& config) {
  CollSampling sampling;
  const nlohmann::json* coll = json_field(config.extra, "coll");
  if (coll == nullptr) return sampling;
  const auto field = [&](std::string_view key) { return json_field(*coll, key); };
  if (const auto* v = field("fixed_iters"); v != nullptr && v->is_number_integer() && v->get<std::int64_t>() >= 0) {
    sampling.fixed_iters = v->get<std::uint64_t>();
  }
  if (const auto* v = field("graph_launches"); v != nullptr && v->is_number_integer()) {
    sampling.graph_launches = v->get<int>();
  }
  if (const auto* v = field("target_ci"); v != nullptr && v->is_number()) sampling.target_ci = v->get<double>();
  if (const auto* v = field("max_time_s"); v != nullptr && v->is_number()) sampling.max_time_s = v->get<double>();
  return sampling;
}

void put_coll_sampling(Config& config, const CollSampling& sampling) {
  if (!config.extra.is_object()) config.extra = nlohmann::json::object();
  nlohmann::json& coll = config.extra["coll"];
  if (!coll.is_object()) coll = nlohmann::json::object();
  coll["fixed_iters"] = optional_json(sampling.fixed_iters);
  coll["graph_launches"] = sampling.graph_launches;
  coll["target_ci"] = sampling.target_ci;
  coll["max_time_s"] = sampling.max_time_s;
}

}  // namespace linkscope::model
