#include "diagnose/text.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace linkscope::diagnose {

std::string format_number(double value) {
  const double magnitude = std::fabs(value);
  if (magnitude >= 10.0 || magnitude == 0.0) return fmt::format("{:.1f}", value);
  if (magnitude >= 0.1) return fmt::format("{:.2f}", value);
  return fmt::format("{:.3f}", value);
}

std::string format_factor(double value) {
  std::string text = std::fabs(value) >= 100 ? fmt::format("{:.0f}", value)
                                             : fmt::format(std::fabs(value) >= 10 ? "{:.1f}" : "{:.2f}", value);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text + "x";
}

std::string format_gbps(double gbps) { return format_number(gbps) + " GB/s"; }

std::string format_percent(double share) {
  const double percent = share * 100.0;
  if (std::fabs(percent) >= 10.0 || percent == 0.0) return fmt::format("{:.0f}%", percent);
  return fmt::format("{:.1f}%", percent);
}

std::string format_bytes(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  if (value == std::floor(value)) return fmt::format("{:.0f} {}", value, kUnits[unit]);
  return fmt::format("{:.1f} {}", value, kUnits[unit]);
}

std::string format_time_us(double microseconds) {
  if (microseconds < 1.0) return fmt::format("{:.0f} ns", microseconds * 1000.0);
  if (microseconds >= 1000.0) return fmt::format("{:.2f} ms", microseconds / 1000.0);
  return fmt::format("{:.1f} us", microseconds);
}

double median_of(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

}  // namespace linkscope::diagnose
