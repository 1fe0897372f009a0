#include "core/sweep.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/size.hpp"

namespace linkscope {

std::vector<std::uint64_t> sweep_sizes(const SweepSpec& spec) {
  if (spec.min_bytes > spec.max_bytes) {
    throw UsageError(fmt::format("minimum size {} (-b) is larger than maximum size {} (-e)",
                                 format_size(spec.min_bytes), format_size(spec.max_bytes)));
  }
  const bool multiplicative = spec.step_factor > 1.0;
  if (!std::isfinite(spec.step_factor)) throw UsageError("step factor (-f) must be a finite number");
  if (multiplicative && spec.min_bytes == 0) {
    throw UsageError("a multiplicative sweep (-f) cannot start at 0 bytes (-b); use -b 1 or more");
  }
  if (!multiplicative && spec.step_bytes == 0 && spec.min_bytes != spec.max_bytes) {
    throw UsageError("step size (-i) is 0 and step factor (-f) is not > 1: the sweep would never end");
  }
  std::vector<std::uint64_t> sizes;
  std::uint64_t size = spec.min_bytes;
  while (true) {
    sizes.push_back(size);
    if (sizes.size() > kMaxSweepPoints) {
      throw UsageError(fmt::format("the sweep has more than {} sizes; use a larger step (-f or -i)", kMaxSweepPoints));
    }
    if (size >= spec.max_bytes) break;
    std::uint64_t next;
    if (multiplicative) {
      const double scaled = std::floor(static_cast<double>(size) * spec.step_factor);
      if (scaled >= static_cast<double>(std::numeric_limits<std::uint64_t>::max())) break;
      next = static_cast<std::uint64_t>(scaled);
      if (next <= size) next = size + 1;  // a factor like 1.1 on 8 bytes must still make progress
    } else {
      if (spec.step_bytes > std::numeric_limits<std::uint64_t>::max() - size) break;
      next = size + spec.step_bytes;
    }
    if (next > spec.max_bytes) break;
    size = next;
  }
  return sizes;
}

}  // namespace linkscope
