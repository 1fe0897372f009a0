#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "core/statistics.hpp"

namespace linkscope {

// When to stop taking samples of one measurement point: instead of a fixed count (nccl-tests' 20), add
// samples until the 95% CI of the median is within `target_ci` of the median, or the time budget for the
// point is spent, whichever comes first; never fewer than `min_samples`.
struct SamplingPolicy {
  double target_ci = 0.01;      // relative half-width of the median's 95% CI
  double max_time_s = 1.0;      // wall-clock budget for the point (sampling only)
  std::size_t min_samples = 6;  // 6 is the smallest count with a 95% CI of the median
  std::size_t max_samples = 10000;
};

enum class StopReason { kNotDone, kPrecisionReached, kTimeBudget, kSampleLimit };
std::string to_string(StopReason reason);

class AdaptiveSampler {
 public:
  explicit AdaptiveSampler(SamplingPolicy policy) : policy_(policy) {}

  // Records one sample and the wall time it cost (seconds, including enqueue and synchronisation).
  void add(double value, double cost_seconds);
  bool done() const { return stop_reason() != StopReason::kNotDone; }
  StopReason stop_reason() const;
  Summary summary() const { return summarize(values_); }
  const std::vector<double>& values() const { return values_; }
  double spent_seconds() const { return spent_seconds_; }

 private:
  SamplingPolicy policy_;
  std::vector<double> values_;
  double spent_seconds_ = 0;
};

}  // namespace linkscope
