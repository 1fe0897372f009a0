#include "model/telemetry_downsample.hpp"

#include <algorithm>

namespace linkscope::model {

namespace {

template <typename T, typename Pick>
void keep(std::optional<T>& into, const std::optional<T>& next, Pick pick) {
  if (!next) return;
  into = into ? pick(*into, *next) : *next;
}

template <typename T>
const T& larger(const T& a, const T& b) {
  return std::max(a, b);
}
template <typename T>
const T& smaller(const T& a, const T& b) {
  return std::min(a, b);
}

}  // namespace

void merge_sample(TelemetrySample& into, const TelemetrySample& next) {
  into.span_s = next.t_s + next.span_s - into.t_s;
  keep(into.gpu_util_percent, next.gpu_util_percent, larger<int>);
  keep(into.memory_util_percent, next.memory_util_percent, larger<int>);
  keep(into.sm_clock_mhz, next.sm_clock_mhz, smaller<int>);
  keep(into.memory_clock_mhz, next.memory_clock_mhz, smaller<int>);
  keep(into.power_w, next.power_w, larger<double>);
  keep(into.temperature_c, next.temperature_c, larger<int>);
  keep(into.memory_used_bytes, next.memory_used_bytes, larger<std::int64_t>);
  for (const auto& reason : next.throttle_reasons) {
    if (std::find(into.throttle_reasons.begin(), into.throttle_reasons.end(), reason) == into.throttle_reasons.end()) {
      into.throttle_reasons.push_back(reason);
    }
  }
}

void downsample(std::vector<TelemetrySample>& samples, std::size_t max_samples) {
  while (samples.size() > max_samples && max_samples > 0) {
    std::vector<TelemetrySample> halved;
    halved.reserve(samples.size() / 2 + 1);
    for (std::size_t i = 0; i < samples.size(); ++i) {
      halved.push_back(samples[i]);
      if (i + 1 < samples.size() && samples[i + 1].step == samples[i].step) merge_sample(halved.back(), samples[++i]);
    }
    if (halved.size() == samples.size()) return;  // every neighbour is across a step boundary
    samples = std::move(halved);
  }
}

}  // namespace linkscope::model
