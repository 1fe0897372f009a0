#include "core/seconds.hpp"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <string>

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

double parse_duration(std::string_view text, std::string_view option) {
  const std::string value(text);
  char* end = nullptr;
  const double number = value.empty() ? 0 : std::strtod(value.c_str(), &end);
  double unit = 0;
  if (end != nullptr && end != value.c_str()) {
    const std::string_view rest(end);
    if (rest.empty() || rest == "s") unit = 1;
    if (rest == "m") unit = 60;
    if (rest == "h") unit = 3600;
  }
  if (unit == 0) {
    throw UsageError(fmt::format("invalid {} {}: a duration is a number with an optional unit s, m or h (30m, 2h, "
                                 "600)", option, value));
  }
  return checked_seconds(number * unit, option, ZeroSeconds::kRefused);
}

}  // namespace linkscope
