#include "model/patterns.hpp"

#include <algorithm>
#include <map>

namespace linkscope::model {


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
      edges.push_back(with_extras(
          {{"src", e.src},
           {"dst", e.dst},
           {"bandwidth_gbps", e.bandwidth_gbps ? nlohmann::json(e.bandwidth_gbps->median) : nlohmann::json(nullptr)},
           {"bandwidth_gbps_range", stat3_json(e.bandwidth_gbps)},
           {"time_us", stat3_json(e.time_us)},
           {"alone_gbps", optional_json(e.alone_gbps)},
           {"alone_reason", string_or_null(e.alone_reason)}},
          e.extra));
    }
    out.push_back(with_extras(
        {{"name", r.name},
         {"status", to_string(r.status)},
         {"reason", string_or_null(r.reason)},
         {"cpu_node", optional_json(r.cpu_node)},
         {"bytes", r.bytes},
         {"method", r.method},
         {"edges", edges},
         {"aggregate_gbps", r.aggregate_gbps ? nlohmann::json(r.aggregate_gbps->median) : nlohmann::json(nullptr)},
         {"aggregate_gbps_range", stat3_json(r.aggregate_gbps)},
         {"sum_alone_gbps", optional_json(r.sum_alone_gbps)},
         {"scaling", optional_json(r.scaling)},
         {"ops_per_sample", r.ops_per_sample},
         {"samples", r.samples},
         {"stop_reason", r.stop_reason},
         {"cv", r.cv},
         {"wrong", r.wrong}},
        r.extra));
  }
  return out;
}

namespace {

// A rate written both as a median number and as a {median, min, max} range (older documents have only the number).
std::optional<Stat3> rate_from(const JsonReader& item, std::string_view key, std::string_view range_key) {
  const auto median = item.number(key);
  if (auto range = stat3_from_json(item, range_key)) return range;
  if (median && *median < 0) item.fail(key, "a negative value (a measured rate is never below 0)");
  if (median) return Stat3{*median, *median, *median, *median};
  return std::nullopt;
}

}  // namespace

std::vector<PatternResult> patterns_from_json(const JsonReader& section) {
  std::vector<PatternResult> patterns;
  for (const auto& item : section.elements()) {
    PatternResult r;
    r.name = item.string_or("name");
    const std::string status = item.string_or("status", "error");
    r.status = point_status_from_string(status);
    if (to_string(r.status) != status) item.fail("status", "unknown status '" + status + "'");
    r.reason = item.string_or("reason");
    r.cpu_node = item.small_int("cpu_node");
    r.bytes = item.count("bytes").value_or(0);
    r.method = item.string_or("method");
    for (const auto& e : item.array("edges")) {
      EdgeResult edge;
      edge.src = e.small_int("src").value_or(0);
      edge.dst = e.small_int("dst").value_or(0);
      edge.bandwidth_gbps = rate_from(e, "bandwidth_gbps", "bandwidth_gbps_range");
      edge.time_us = stat3_from_json(e, "time_us");
      edge.alone_gbps = e.number("alone_gbps");
      edge.alone_reason = e.string_or("alone_reason");
      edge.extra = e.extras();
      r.edges.push_back(edge);
    }
    r.aggregate_gbps = rate_from(item, "aggregate_gbps", "aggregate_gbps_range");
    r.sum_alone_gbps = item.number("sum_alone_gbps");
    r.scaling = item.number("scaling");
    if (!r.scaling && r.aggregate_gbps && r.sum_alone_gbps && *r.sum_alone_gbps > 0) {
      r.scaling = r.aggregate_gbps->median / *r.sum_alone_gbps;
    }
    r.ops_per_sample = item.small_int("ops_per_sample").value_or(0);
    r.samples = item.count("samples").value_or(0);
    r.stop_reason = item.string_or("stop_reason");
    r.cv = item.number("cv").value_or(0.0);
    r.wrong = item.count("wrong").value_or(0);
    r.extra = item.extras();
    patterns.push_back(r);
  }
  return patterns;
}

NumaSweep numa_sweep_from_json(const JsonReader& section) {
  NumaSweep sweep;
  for (auto node : section.integers("nodes")) sweep.nodes.push_back(static_cast<int>(node));
  for (const auto& entry : section.array("per_node")) {
    sweep.per_node.push_back({entry.small_int("node").value_or(0), entry.string_or("pattern"),
                              entry.number("aggregate_gbps").value_or(0.0)});
  }
  sweep.largest_relative_difference = section.number("largest_relative_difference");
  sweep.pattern = section.string_or("pattern");
  sweep.reason = section.string_or("reason");
  return sweep;
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

PatternSettings pattern_settings(const PatternRun& run) {
  PatternSettings settings;
  const auto field = [&](std::string_view key) { return json_field(run.config, key); };
  if (const auto* v = field("bytes"); v != nullptr && v->is_number_integer() && v->get<std::int64_t>() >= 0) {
    settings.bytes = v->get<std::uint64_t>();
  }
  if (const auto* v = field("method"); v != nullptr && v->is_string()) settings.method = v->get<std::string>();
  if (const auto* v = field("sm_kernel"); v != nullptr && v->is_string()) settings.sm_kernel = v->get<std::string>();
  if (const auto* v = field("verify"); v != nullptr && v->is_boolean()) settings.verify = v->get<bool>();
  return settings;
}

nlohmann::json pattern_config_json(const PatternRun& run) {
  nlohmann::json config = run.config.is_object() ? run.config : nlohmann::json::object();
  config["devices"] = nlohmann::json::array();
  for (const auto& d : run.devices) config["devices"].push_back(to_json(d));
  config["notes"] = run.notes;
  return config;
}

void read_pattern_config(const JsonReader& config, PatternRun& run) {
  for (const auto& d : config.array("devices")) run.devices.push_back(device_info_from_json(d));
  run.notes = config.strings("notes");
  run.config = config.extras();
}

std::uint64_t total_wrong(const std::vector<PatternResult>& patterns) {
  std::uint64_t wrong = 0;
  for (const auto& p : patterns) wrong += p.wrong;
  return wrong;
}

}  // namespace linkscope::model
