#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/json_read.hpp"

// A run judged against a fleet baseline (`--baseline FILE`, src/fleet): each comparable number of this host beside
// the robust statistics of the same number on hosts of its machine type. The Run's `fleet` section.
namespace linkscope::model {

// Robust statistics of one metric over the fleet's hosts of one machine type.
struct FleetSpread {
  double median = 0;
  double mad = 0;  // median absolute deviation (unscaled)
  double p5 = 0, p95 = 0;
  int count = 0;  // hosts (values) behind it
};

struct FleetMetric {
  std::string category;  // "p2p", "latency", "host", "collective", "pattern", "ladder"
  std::string metric;    // what is measured, without its subject ("ce write NV18 at 512 MiB")
  std::string subject;   // the GPU or pair it was measured on ("GPU0->GPU1"); empty: the whole host
  std::string unit;
  bool higher_is_better = true;
  double value = 0;
  FleetSpread fleet;
  double relative = 0;                // (value - median) / median
  std::optional<double> robust_z;     // (value - median) / (1.4826 * MAD); absent when MAD is 0
  bool outside = false;               // worse than the fleet beyond both thresholds
};

struct FleetComparison {
  std::string baseline;      // the baseline file as given
  std::string host;          // this run's host
  std::string machine_type;  // its key (src/fleet/machine_type)
  bool type_in_baseline = false;
  int baseline_hosts = 0;    // hosts of that type the baseline was built from
  double relative_threshold = 0, z_threshold = 0;  // as applied (diagnose/expectations)
  std::vector<FleetMetric> metrics;  // every number compared, in the run's order
  int not_in_baseline = 0;           // numbers of the run the baseline has no statistic for

  int outside_count() const;
};

// One line for a number against the fleet: "node-a GPU0->GPU1: p2p ce write NV18 at 512 MiB = 301.2 GB/s; fleet
// median 393.8 (MAD 1.2, p5-p95 391.0-395.1, 24 values): -23.5%, robust z -52.0" (findings, compare, reports).
std::string fleet_metric_text(const FleetComparison& fleet, const FleetMetric& metric);

// {median, mad, p5, p95, count}: in the Run's `fleet` and in the baseline file (src/fleet). A missing median is an
// InputError; missing percentiles read as the median.
nlohmann::json to_json(const FleetSpread& spread);
FleetSpread fleet_spread_from_json(const JsonReader& r);

nlohmann::json to_json(const FleetComparison& fleet);
FleetComparison fleet_from_json(const JsonReader& r);

}  // namespace linkscope::model
