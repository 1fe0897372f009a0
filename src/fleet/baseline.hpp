#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/fleet.hpp"
#include "model/run.hpp"

// A fleet baseline (`linkscope baseline RUN.json... -o baseline.json`): per machine type (fleet/machine_type), robust
// statistics of every comparable number over the saved runs of many hosts. docs/multi-node.md describes the file.
namespace linkscope::fleet {

inline constexpr const char* kBaselineFormat = "linkscope-baseline";
inline constexpr int kBaselineVersion = 1;

// How a baseline keys a metric: its category and its words ("p2p|ce uni NV18 at 512 MiB").
inline std::string metric_key(const std::string& category, const std::string& metric) { return category + "|" + metric; }

// One number of one host, without its subject: what the fleet pools.
struct Sample {
  std::string category, metric, subject, unit;
  bool higher_is_better = true;
  double value = 0;
  std::string key() const { return metric_key(category, metric); }
};

// Every comparable number of a run (diagnose/comparable_measures, plus cross-host pairs by host pair and the
// all_reduce busbw of every `cluster --isolate` group that measured one), so that equal pairs of one class
// (GPU0->GPU1 and GPU2->GPU3 on NV18) pool into one metric.
std::vector<Sample> fleet_samples(const model::Run& run);

// The cross-host metrics (category "cross-host") at one size: NCCL sendrecv between two hosts, one GPU each, per
// direction; and an all_reduce over hosts with one GPU each (`cluster --isolate`'s groups), busbw. Both are bounded
// by the hosts' NICs, so either tells what a group of good hosts reaches.
inline constexpr const char* kCrossHostCategory = "cross-host";
std::string host_pair_metric(std::uint64_t bytes);
std::string host_group_all_reduce_metric(std::uint64_t bytes);

struct BaselineMetric {
  std::string category, metric, unit;
  bool higher_is_better = true;
  model::FleetSpread spread;
};

struct TypeBaseline {
  std::vector<std::string> hosts;  // the hosts its runs came from, each once
  int runs = 0;
  std::map<std::string, BaselineMetric> metrics;  // Sample::key() -> statistics
};

struct Baseline {
  std::string created_at, tool_version;
  std::map<std::string, TypeBaseline> types;  // machine type -> its statistics
};

// `runs`: (file name, run). Throws InputError for a run without hardware facts (no machine type) and UsageError for
// no runs at all.
Baseline build_baseline(const std::vector<std::pair<std::string, model::Run>>& runs);

nlohmann::json baseline_to_json(const Baseline& baseline);
// Every problem is an InputError naming `source` (exit 2): not JSON, not a baseline, another version, a field of
// the wrong type.
Baseline baseline_from_json(const nlohmann::json& document, const std::string& source);
Baseline read_baseline_file(const std::string& path);

}  // namespace linkscope::fleet
