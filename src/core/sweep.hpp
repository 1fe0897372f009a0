#pragma once
#include <cstdint>
#include <vector>

namespace linkscope {

// A size sweep with nccl-tests semantics: from min_bytes to max_bytes inclusive, multiplying by
// step_factor when it is > 1, otherwise adding step_bytes.
struct SweepSpec {
  std::uint64_t min_bytes = 0;
  std::uint64_t max_bytes = 0;
  double step_factor = 1.0;      // -f; > 1 selects a multiplicative sweep
  std::uint64_t step_bytes = 0;  // -i; used when step_factor <= 1
};

// Maximum number of points a sweep may produce; more is almost always a typo (e.g. -i 1 over 8 GiB).
inline constexpr std::size_t kMaxSweepPoints = 100000;

// Validates the spec (min <= max, a step that makes progress, no zero start for a factor sweep,
// at most kMaxSweepPoints points) and returns the sizes. Throws UsageError with the reason.
std::vector<std::uint64_t> sweep_sizes(const SweepSpec& spec);

}  // namespace linkscope
