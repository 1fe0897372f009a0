#include "core/seconds.hpp"

#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace linkscope {

double checked_seconds(double value, std::string_view option, ZeroSeconds zero) {
  const double max_seconds = std::chrono::duration<double>(std::chrono::nanoseconds::max()).count();
  const bool low_ok = zero == ZeroSeconds::kAllowed ? value >= 0 : value > 0;
  if (!std::isfinite(value) || !low_ok || value > max_seconds) {
    // {:g}: "1e+300", never three hundred digits.
    throw UsageError(fmt::format("invalid {} {:g}: seconds must be a number {} 0 and at most {:.0f}", option, value,
                                 zero == ZeroSeconds::kAllowed ? ">=" : ">", std::floor(max_seconds)));
  }
  return value;
}

}  // namespace linkscope
