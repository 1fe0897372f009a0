#include "fleet/fleet_judge.hpp"

#include <algorithm>
#include <cmath>

#include "core/statistics.hpp"
#include "diagnose/expectations.hpp"
#include "fleet/machine_type.hpp"

namespace linkscope::fleet {

using diagnose::Threshold;

namespace {

// Latency-bound numbers (times of small sizes, latencies) vary more between two runs of one machine.
bool latency_bound(const Sample& s) { return !s.higher_is_better; }

}  // namespace

double outside_floor(const model::FleetSpread& spread, double relative, double z) {
  const double relative_floor = spread.median * (1 - relative);
  if (!(spread.mad > 0)) return relative_floor;  // no spread: the relative threshold alone (as robust_z)
  return std::min(relative_floor, spread.median - z * kMadToSigma * spread.mad);
}

model::FleetComparison judge_against_baseline(const model::Run& run, const Baseline& baseline,
                                              const std::string& baseline_name) {
  model::FleetComparison out;
  out.baseline = baseline_name;
  out.host = run.config.host;
  out.machine_type = machine_type(run);
  out.relative_threshold = diagnose::threshold(Threshold::kFleetRelativeDeviation);
  out.z_threshold = diagnose::threshold(Threshold::kFleetRobustZ);
  const auto type = baseline.types.find(out.machine_type);
  out.type_in_baseline = type != baseline.types.end();
  if (!out.type_in_baseline) return out;
  out.baseline_hosts = static_cast<int>(type->second.hosts.size());
  const double latency_threshold = diagnose::threshold(Threshold::kCompareLatencyBoundNoise);
  for (const Sample& s : fleet_samples(run)) {
    const auto found = type->second.metrics.find(s.key());
    if (found == type->second.metrics.end()) {
      ++out.not_in_baseline;
      continue;
    }
    const model::FleetSpread& spread = found->second.spread;
    model::FleetMetric m{s.category, s.metric, s.subject, s.unit, s.higher_is_better, s.value, spread};
    m.relative = spread.median != 0 ? (s.value - spread.median) / spread.median : 0;
    m.robust_z = robust_z(s.value, spread.median, spread.mad);
    const bool worse = s.higher_is_better ? m.relative < 0 : m.relative > 0;
    const double relative_limit = latency_bound(s) ? std::max(latency_threshold, out.relative_threshold)
                                                   : out.relative_threshold;
    const bool beyond_z = !m.robust_z || std::fabs(*m.robust_z) > out.z_threshold;
    m.outside = worse && std::fabs(m.relative) > relative_limit && beyond_z;
    out.metrics.push_back(m);
  }
  return out;
}

}  // namespace linkscope::fleet
