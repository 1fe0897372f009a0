#pragma once
#include <string>

#include "fleet/baseline.hpp"
#include "model/fleet.hpp"
#include "model/run.hpp"

// A run against a fleet baseline: each of its numbers beside the statistics of its machine type. A number is outside
// the fleet when it is worse than the median by more than the relative threshold AND, where the fleet has spread,
// by more than the robust z threshold (diagnose/expectations: fleet_relative_deviation, fleet_robust_z).
namespace linkscope::fleet {

// The value below which a higher-is-better number of this spread is outside the fleet: the lower of the relative
// floor (median x (1 - relative)) and, where the fleet has spread, the robust z floor (median - z x 1.4826 x MAD),
// since a number is outside only beyond both. `cluster --isolate --baseline` judges its groups by it.
double outside_floor(const model::FleetSpread& spread, double relative, double z);

// `baseline_name` is the file as the user gave it (shown in the report).
model::FleetComparison judge_against_baseline(const model::Run& run, const Baseline& baseline,
                                              const std::string& baseline_name);

}  // namespace linkscope::fleet
