#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/json_read.hpp"
#include "model/p2p.hpp"

namespace linkscope::model {

// One edge of a pattern: its own rate while every edge ran, and the same edge measured alone.
struct EdgeResult {
  int src = 0, dst = 0;
  std::optional<Stat3> bandwidth_gbps;   // from the edge's own start/stop events
  std::optional<Stat3> time_us;          // per operation
  std::optional<double> alone_gbps;      // median, the edge by itself (same method and size)
  std::string alone_reason;              // why alone_gbps is missing
  nlohmann::json extra;
};

struct PatternResult {
  std::string name;
  PointStatus status = PointStatus::kOk;
  std::string reason;                  // skip or failure reason
  std::optional<int> cpu_node;         // NUMA node of the submitting thread (--cpu-node / --numa-sweep)
  std::uint64_t bytes = 0;             // per edge and operation
  std::string method;                  // ce | sm_read | sm_write
  std::vector<EdgeResult> edges;
  // All payload bytes / (last stop - first start), over the events of every stream.
  std::optional<Stat3> aggregate_gbps;
  std::optional<double> sum_alone_gbps;  // sum of alone_gbps over edges (null when any is missing)
  std::optional<double> scaling;         // aggregate median / sum_alone_gbps
  int ops_per_sample = 0;
  std::size_t samples = 0;
  std::string stop_reason;
  double cv = 0;                         // of the aggregate samples
  std::uint64_t wrong = 0;
  nlohmann::json extra;
};

// Fills sum_alone_gbps and scaling from the edges' alone_gbps and aggregate_gbps.
void compute_scaling(PatternResult& result);

// The pattern set measured from each NUMA node.
struct NumaSweep {
  std::vector<int> nodes;
  // Over patterns measured from every node: (largest - smallest) / largest of the aggregate medians.
  std::optional<double> largest_relative_difference;
  std::string pattern;   // where it is largest
  std::string reason;    // why there is no difference to report (e.g. one NUMA node)
  struct NodeAggregate {
    int node = 0;
    std::string pattern;
    double aggregate_gbps = 0;
  };
  std::vector<NodeAggregate> per_node;  // aggregate median of every pattern measured from every node
};
NumaSweep summarize_numa_sweep(const std::vector<int>& nodes, const std::vector<PatternResult>& results);

// One `linkscope patterns` run: measurements.patterns (the results), measurements.patterns_config (what was asked,
// with the devices and notes) and measurements.numa_sweep.
struct PatternRun {
  nlohmann::json config = nlohmann::json::object();  // bytes, method, sm_kernel, verify, ... as the engine ran
  std::vector<DeviceInfo> devices;
  std::vector<PatternResult> patterns;
  std::optional<NumaSweep> numa;
  std::vector<std::string> notes;
};

// What a pattern run's header states, read from `config` (which the engine writes as JSON): the size per edge, the
// copy method, the SM kernel shape (SM copies only) and whether copies were verified. A field the config lacks
// keeps its default.
struct PatternSettings {
  std::uint64_t bytes = 0;
  std::string method = "?";
  std::optional<std::string> sm_kernel;
  bool verify = true;
};
PatternSettings pattern_settings(const PatternRun& run);

nlohmann::json patterns_to_json(const std::vector<PatternResult>& patterns);
std::vector<PatternResult> patterns_from_json(const JsonReader& section);
nlohmann::json to_json(const NumaSweep& sweep);
NumaSweep numa_sweep_from_json(const JsonReader& section);
// measurements.patterns_config: the engine's config plus "devices" and "notes".
nlohmann::json pattern_config_json(const PatternRun& run);
// Reads patterns_config back into `run` (config, devices, notes).
void read_pattern_config(const JsonReader& config, PatternRun& run);

std::uint64_t total_wrong(const std::vector<PatternResult>& patterns);

}  // namespace linkscope::model
