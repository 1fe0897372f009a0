#include "model/prediction.hpp"

namespace linkscope::model {

using nlohmann::json;

const TuningChoice* Prediction::choice(const std::string& collective, std::uint64_t size_bytes) const {
  for (const auto& c : tuning) {
    if (c.collective == collective && c.size_bytes == size_bytes) return &c;
  }
  return nullptr;
}

namespace {

json graph_json(const TopoGraph& g) {
  json out = {{"graph", g.graph},           {"pattern", g.pattern},       {"n_channels", g.n_channels},
              {"bw_intra", g.bw_intra},     {"bw_inter", g.bw_inter},     {"type_intra", g.type_intra},
              {"type_inter", g.type_inter}, {"cross_nic", g.cross_nic},   {"same_channels", g.same_channels},
              {"fell_back", g.fell_back},   {"channels", g.channels}};
  return with_extras(std::move(out), g.extra);
}

TopoGraph graph_from(const JsonReader& r) {
  TopoGraph g;
  g.graph = r.string_or("graph");
  g.pattern = r.small_int("pattern").value_or(0);
  g.n_channels = r.small_int("n_channels").value_or(0);
  g.bw_intra = r.number("bw_intra").value_or(0);
  g.bw_inter = r.number("bw_inter").value_or(0);
  g.type_intra = r.string_or("type_intra");
  g.type_inter = r.string_or("type_inter");
  g.cross_nic = r.boolean("cross_nic").value_or(false);
  g.same_channels = r.boolean("same_channels").value_or(false);
  g.fell_back = r.boolean("fell_back").value_or(false);
  for (const auto& channel : r.array("channels")) {
    std::vector<int> ranks;
    for (const auto& rank : channel.elements()) {
      if (!rank.json().is_number_integer()) channel.fail("", "expected integer ranks");
      ranks.push_back(rank.json().get<int>());
    }
    g.channels.push_back(std::move(ranks));
  }
  g.extra = r.extras();
  return g;
}

json choice_json(const TuningChoice& c) {
  json out = {{"collective", c.collective},
              {"size_bytes", c.size_bytes},
              {"tuner_bytes", c.tuner_bytes},
              {"algorithm", optional_json(c.algorithm)},
              {"protocol", optional_json(c.protocol)},
              {"channels", c.channels},
              {"time_us", optional_json(c.time_us)},
              {"algbw_gbps", optional_json(c.algbw_gbps)},
              {"busbw_gbps", optional_json(c.busbw_gbps)}};
  if (c.error) out["error"] = *c.error;
  return with_extras(std::move(out), c.extra);
}

TuningChoice choice_from(const JsonReader& r) {
  TuningChoice c;
  c.collective = r.string_or("collective");
  c.size_bytes = r.count("size_bytes").value_or(0);
  c.tuner_bytes = r.count("tuner_bytes").value_or(c.size_bytes);
  c.algorithm = r.string("algorithm");
  c.protocol = r.string("protocol");
  c.channels = r.small_int("channels").value_or(0);
  c.time_us = r.number("time_us");
  c.algbw_gbps = r.number("algbw_gbps");
  c.busbw_gbps = r.number("busbw_gbps");
  c.error = r.string("error");
  c.extra = r.extras();
  return c;
}

}  // namespace

void put_prediction(json& model_section, const Prediction& prediction) {
  if (prediction.empty()) return;
  model_section["prediction"] = {{"n_ranks", prediction.n_ranks},
                                 {"coll_channels", prediction.coll_channels},
                                 {"unavailable", string_or_null(prediction.unavailable)}};
  json graphs = json::array();
  for (const auto& g : prediction.graphs) graphs.push_back(graph_json(g));
  model_section["graphs"] = std::move(graphs);
  json tuning = json::array();
  for (const auto& c : prediction.tuning) tuning.push_back(choice_json(c));
  model_section["tuning"] = std::move(tuning);
}

Prediction prediction_from_json(const JsonReader& r) {
  Prediction p;
  const JsonReader head = r.object("prediction");
  p.n_ranks = head.small_int("n_ranks").value_or(0);
  p.coll_channels = head.small_int("coll_channels").value_or(0);
  p.unavailable = head.string_or("unavailable");
  for (const auto& g : r.array("graphs")) p.graphs.push_back(graph_from(g));
  for (const auto& c : r.array("tuning")) p.tuning.push_back(choice_from(c));
  return p;
}

}  // namespace linkscope::model
