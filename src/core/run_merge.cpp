#include "core/run_merge.hpp"

namespace linkscope {

namespace {

void append_array(nlohmann::json& into, const nlohmann::json& from, const char* key) {
  if (!from.contains(key) || !from[key].is_array()) return;
  if (!into.contains(key) || !into[key].is_array()) into[key] = nlohmann::json::array();
  for (const auto& item : from[key]) into[key].push_back(item);
}

}  // namespace

void merge_child_run(RunDocument& into, const RunDocument& child, const std::string& step) {
  if (!into.measurements.is_object()) into.measurements = nlohmann::json::object();
  if (child.measurements.is_object()) {
    for (const auto& [key, value] : child.measurements.items()) {
      if (key == "collectives" && value.is_array()) {
        append_array(into.measurements, child.measurements, "collectives");
      } else if (key == "p2p" && into.measurements.contains("p2p") && into.measurements["p2p"].is_object()) {
        for (const char* part : {"points", "latency", "host"}) append_array(into.measurements["p2p"], value, part);
      } else {
        into.measurements[key] = value;
      }
    }
  }
  if (child.runtime.is_object()) {
    if (!into.runtime.is_object()) into.runtime = nlohmann::json::object();
    if (!into.runtime.contains("nccl_version") && child.runtime.contains("nccl_version")) {
      into.runtime["nccl_version"] = child.runtime["nccl_version"];
    }
    append_array(into.runtime, child.runtime, "runs");
  }
  if (child.errors.is_array()) {
    for (const auto& error : child.errors) {
      nlohmann::json copy = error;
      copy["where"] = step + ": " + error.value("where", std::string());
      into.errors.push_back(copy);
    }
  }
}

}  // namespace linkscope
