#include "core/adaptive_sampler.hpp"

namespace linkscope {

std::string to_string(StopReason reason) {
  switch (reason) {
    case StopReason::kNotDone: return "not-done";
    case StopReason::kPrecisionReached: return "precision-reached";
    case StopReason::kTimeBudget: return "time-budget";
    case StopReason::kSampleLimit: return "sample-limit";
  }
  return "unknown";
}

void AdaptiveSampler::add(double value, double cost_seconds) {
  values_.push_back(value);
  spent_seconds_ += cost_seconds;
}

StopReason AdaptiveSampler::stop_reason() const {
  if (values_.size() >= policy_.max_samples) return StopReason::kSampleLimit;
  if (values_.size() < policy_.min_samples) {
    // Even the minimum count is cut short when one sample alone exceeds the budget (huge sizes).
    return spent_seconds_ >= policy_.max_time_s && !values_.empty() ? StopReason::kTimeBudget : StopReason::kNotDone;
  }
  const Summary s = summarize(values_);
  if (s.ci_is_95 && s.median_ci_relative_halfwidth() <= policy_.target_ci) return StopReason::kPrecisionReached;
  if (spent_seconds_ >= policy_.max_time_s) return StopReason::kTimeBudget;
  return StopReason::kNotDone;
}

}  // namespace linkscope
