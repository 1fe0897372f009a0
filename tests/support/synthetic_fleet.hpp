#pragma once
#include <string>

#include <nlohmann/json.hpp>

// SYNTHETIC fleets for the baseline tests: a real saved run copied as another host, every measured number scaled
// (bandwidths by `factor`, times and latencies by 1 / factor), so a host can be made faster, slower or an outlier.
namespace linkscope::test {

// Every number inside `value` (a bandwidth, or its {median, min, max}).
inline void scale_numbers(nlohmann::json& value, double factor) {
  if (value.is_number()) {
    value = value.get<double>() * factor;
  } else if (value.is_structured()) {
    for (auto& element : value) scale_numbers(element, factor);
  }
}

// The numbers under keys that are bandwidths ("*_gbps") or times ("time_us", "latency_ns").
inline void scale_measured(nlohmann::json& value, double factor) {
  if (!value.is_structured()) return;
  for (auto it = value.begin(); it != value.end(); ++it) {
    if (value.is_object()) {
      const std::string& key = it.key();
      if (key.size() > 5 && key.compare(key.size() - 5, 5, "_gbps") == 0) {
        scale_numbers(it.value(), factor);
        continue;
      }
      if (key == "time_us" || key == "latency_ns") {
        scale_numbers(it.value(), 1.0 / factor);
        continue;
      }
    }
    if (it->is_structured()) scale_measured(it.value(), factor);
  }
}

// `run` (a Run document) as host `host` with its measurements scaled by `factor`.
inline nlohmann::json synthetic_host(nlohmann::json run, const std::string& host, double factor) {
  run["config"]["host"] = host;
  scale_measured(run["measurements"], factor);
  return run;
}

}  // namespace linkscope::test
