#pragma once
#include <string_view>

namespace linkscope {

enum class ZeroSeconds { kAllowed, kRefused };

// A time option as typed (--timeout, --max-time): a finite number of seconds, >= 0 (or > 0), no larger than a
// std::chrono::nanoseconds holds (the waits convert to it). Throws a one-line UsageError naming the option
// otherwise (nan, inf, negative, 1e300); returns the value.
double checked_seconds(double value, std::string_view option, ZeroSeconds zero = ZeroSeconds::kAllowed);

// A duration as typed (--soak 30m): a number of seconds with an optional unit s, m or h ("90", "90s", "1.5h"),
// greater than 0. Throws a one-line UsageError naming the option otherwise.
double parse_duration(std::string_view text, std::string_view option);

}  // namespace linkscope
