#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/soak.hpp"

// What changed over a soak's cycles (doctor --soak, cluster --soak): a metric's drift (a steady trend), a step (a
// sudden change the later cycles keep), a link state that changed (a flap) and a link error counter that grew. Pure
// functions of the cycles; the thresholds are the threshold table's soak_* rows.
namespace linkscope::diagnose {

struct MetricChange {
  std::string metric;
  std::string kind;          // "drift" or "step"
  double before = 0, after = 0;  // drift: the fit at the first and the last cycle; step: the medians around it
  int at_cycle = 0;          // step: the first cycle on the new level; drift: the last cycle
  double relative = 0;       // (after - before) / before
};

struct StateChange {
  std::string state;
  std::string before, after;
  int at_cycle = 0;
};

// A link error counter that grew between two cycles.
struct CounterRise {
  std::string counter;
  std::int64_t before = 0, after = 0;
  int at_cycle = 0;  // the cycle that read the higher value
};

std::vector<MetricChange> soak_metric_changes(const model::Soak& soak);
std::vector<StateChange> soak_state_changes(const model::Soak& soak);
std::vector<CounterRise> soak_counter_rises(const model::Soak& soak);

}  // namespace linkscope::diagnose
