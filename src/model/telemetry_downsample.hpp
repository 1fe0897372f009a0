#pragma once
#include <cstddef>
#include <vector>

#include "model/telemetry.hpp"

// Bounding the samples a run keeps: a long run sampled ten times a second would otherwise grow without limit.
namespace linkscope::model {

// `into` and the sample after it become one sample covering both: the highest utilization, power, temperature and
// memory, the lowest clocks, every throttle reason (a merged sample keeps the evidence of either pass).
void merge_sample(TelemetrySample& into, const TelemetrySample& next);

// Halves `samples` by merging neighbours until at most `max_samples` remain. Only neighbours of the same step (or
// both between steps) are merged, so a sample never straddles a step boundary; when no pair can be merged any more
// (more step boundaries than `max_samples`) more than `max_samples` remain.
void downsample(std::vector<TelemetrySample>& samples, std::size_t max_samples);

}  // namespace linkscope::model
