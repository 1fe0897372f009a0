#include "plan/pattern_result.hpp"

#include <algorithm>
#include <map>

namespace linkscope::plan {

namespace {
nlohmann::json optional_json(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}
std::optional<double> optional_double(const nlohmann::json& item, const char* key) {
  if (!item.contains(key) || !item[key].is_number()) return std::nullopt;
  return item[key].get<double>();
}
std::string string_or_empty(const nlohmann::json& item, const char* key) {
  return item.contains(key) && item[key].is_string() ? item[key].get<std::string>() : std::string();
}
}  // namespace

void compute_scaling(PatternResult& result) {
  result.sum_alone_gbps.reset();
  result.scaling.reset();
  if (result.edges.empty()) return;
  double sum = 0;
  for (const auto& edge : result.edges) {
    if (!edge.alone_gbps) return;
    sum += *edge.alone_gbps;
  }
  result.sum_alone_gbps = sum;
  if (result.aggregate_gbps && sum > 0) result.scaling = result.aggregate_gbps->median / sum;
}

NumaSweep summarize_numa_sweep(const std::vector<int>& nodes, const std::vector<PatternResult>& results) {
  NumaSweep sweep;
  sweep.nodes = nodes;
  if (nodes.size() < 2) {
    sweep.reason = "one NUMA node with CPUs: nothing to compare, measured once";
  }
  std::map<std::string, std::vector<double>> by_pattern;
  for (const auto& r : results) {
    if (r.status != PointStatus::kOk || !r.aggregate_gbps || !r.cpu_node) continue;
    by_pattern[r.name].push_back(r.aggregate_gbps->median);
    sweep.per_node.push_back({*r.cpu_node, r.name, r.aggregate_gbps->median});
  }
  if (nodes.size() < 2) return sweep;
  for (const auto& [name, values] : by_pattern) {
    if (values.size() != nodes.size()) continue;  // compare only patterns measured from every node
    const auto [lo, hi] = std::minmax_element(values.begin(), values.end());
    if (*hi <= 0) continue;
    const double difference = (*hi - *lo) / *hi;
    if (!sweep.largest_relative_difference || difference > *sweep.largest_relative_difference) {
      sweep.largest_relative_difference = difference;
      sweep.pattern = name;
    }
  }
  if (!sweep.largest_relative_difference) sweep.reason = "no pattern was measured successfully from every node";
  return sweep;
}

nlohmann::json patterns_to_json(const std::vector<PatternResult>& patterns) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : patterns) {
    nlohmann::json edges = nlohmann::json::array();
    for (const auto& e : r.edges) {
      edges.push_back({{"src", e.src}, {"dst", e.dst},
                       {"bandwidth_gbps", e.bandwidth_gbps ? nlohmann::json(e.bandwidth_gbps->median) : nlohmann::json(nullptr)},
                       {"bandwidth_gbps_range", stat3_json(e.bandwidth_gbps)}, {"time_us", stat3_json(e.time_us)},
                       {"alone_gbps", optional_json(e.alone_gbps)},
                       {"alone_reason", e.alone_reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(e.alone_reason)}});
    }
    out.push_back({{"name", r.name}, {"status", to_string(r.status)},
                   {"reason", r.reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.reason)},
                   {"cpu_node", r.cpu_node ? nlohmann::json(*r.cpu_node) : nlohmann::json(nullptr)},
                   {"bytes", r.bytes}, {"method", r.method}, {"edges", edges},
                   {"aggregate_gbps", r.aggregate_gbps ? nlohmann::json(r.aggregate_gbps->median) : nlohmann::json(nullptr)},
                   {"aggregate_gbps_range", stat3_json(r.aggregate_gbps)},
                   {"sum_alone_gbps", optional_json(r.sum_alone_gbps)}, {"scaling", optional_json(r.scaling)},
                   {"ops_per_sample", r.ops_per_sample}, {"samples", r.samples}, {"stop_reason", r.stop_reason},
                   {"cv", r.cv}, {"wrong", r.wrong}});
  }
  return out;
}

std::vector<PatternResult> patterns_from_json(const nlohmann::json& section) {
  std::vector<PatternResult> patterns;
  if (!section.is_array()) return patterns;
  for (const auto& item : section) {
    PatternResult r;
    r.name = item.value("name", "");
    r.status = point_status_from_string(item.value("status", "error"));
    r.reason = string_or_empty(item, "reason");
    if (item.contains("cpu_node") && item["cpu_node"].is_number_integer()) r.cpu_node = item["cpu_node"].get<int>();
    r.bytes = item.value("bytes", std::uint64_t{0});
    r.method = item.value("method", "");
    for (const auto& e : item.value("edges", nlohmann::json::array())) {
      EdgeResult edge;
      edge.src = e.value("src", 0);
      edge.dst = e.value("dst", 0);
      edge.bandwidth_gbps = stat3_from_json(e.value("bandwidth_gbps_range", nlohmann::json()));
      edge.time_us = stat3_from_json(e.value("time_us", nlohmann::json()));
      edge.alone_gbps = optional_double(e, "alone_gbps");
      edge.alone_reason = string_or_empty(e, "alone_reason");
      r.edges.push_back(edge);
    }
    r.aggregate_gbps = stat3_from_json(item.value("aggregate_gbps_range", nlohmann::json()));
    r.sum_alone_gbps = optional_double(item, "sum_alone_gbps");
    r.scaling = optional_double(item, "scaling");
    r.ops_per_sample = item.value("ops_per_sample", 0);
    r.samples = item.value("samples", std::size_t{0});
    r.stop_reason = item.value("stop_reason", "");
    r.cv = item.value("cv", 0.0);
    r.wrong = item.value("wrong", std::uint64_t{0});
    patterns.push_back(r);
  }
  return patterns;
}

nlohmann::json to_json(const NumaSweep& sweep) {
  nlohmann::json per_node = nlohmann::json::array();
  for (const auto& entry : sweep.per_node) {
    per_node.push_back({{"node", entry.node}, {"pattern", entry.pattern}, {"aggregate_gbps", entry.aggregate_gbps}});
  }
  return {{"nodes", sweep.nodes},
          {"per_node", per_node},
          {"largest_relative_difference", optional_json(sweep.largest_relative_difference)},
          {"pattern", sweep.pattern.empty() ? nlohmann::json(nullptr) : nlohmann::json(sweep.pattern)},
          {"reason", sweep.reason.empty() ? nlohmann::json(nullptr) : nlohmann::json(sweep.reason)}};
}

std::uint64_t total_wrong(const std::vector<PatternResult>& patterns) {
  std::uint64_t wrong = 0;
  for (const auto& p : patterns) wrong += p.wrong;
  return wrong;
}

}  // namespace linkscope::plan
