#include "core/text.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

namespace linkscope {

std::string join(const std::vector<std::string>& parts, std::string_view separator) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += separator;
    out += parts[i];
  }
  return out;
}

std::string lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string trim_spaces(std::string_view text) {
  std::size_t begin = 0;
  std::size_t end = text.size();
  while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
  while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return std::string(text.substr(begin, end - begin));
}

std::vector<std::string> split_list(std::string_view text, char separator) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    items.push_back(trim_spaces(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start)));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return items;
}

std::string format_ranges(std::vector<int> values, std::string_view separator) {
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < values.size();) {
    std::size_t j = i;
    while (j + 1 < values.size() && values[j + 1] == values[j] + 1) ++j;
    parts.push_back(j == i ? std::to_string(values[i]) : fmt::format("{}-{}", values[i], values[j]));
    i = j + 1;
  }
  return join(parts, separator);
}

std::string rank_list(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  if (ranks.empty()) return "no rank";
  const std::string prefix = ranks.size() == 1 ? "rank " : "ranks ";
  return prefix + format_ranges(std::move(ranks), ", ");
}

std::string without_trailing_spaces(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  std::size_t line_start = 0;
  while (line_start < text.size()) {
    std::size_t end = text.find('\n', line_start);
    const bool newline = end != std::string::npos;
    if (!newline) end = text.size();
    std::size_t last = end;
    while (last > line_start && text[last - 1] == ' ') --last;
    out.append(text, line_start, last - line_start);
    if (newline) out += '\n';
    line_start = end + 1;
  }
  return out;
}

std::string format_number(double value) {
  const double magnitude = std::fabs(value);
  if (magnitude >= 10.0 || magnitude == 0.0) return fmt::format("{:.1f}", value);
  if (magnitude >= 0.1) return fmt::format("{:.2f}", value);
  return fmt::format("{:.3f}", value);
}

std::string format_gbps(double gbps) { return format_number(gbps) + " GB/s"; }

std::string format_factor(double value) {
  std::string text = std::fabs(value) >= 100 ? fmt::format("{:.0f}", value)
                                             : fmt::format(std::fabs(value) >= 10 ? "{:.1f}" : "{:.2f}", value);
  if (text.find('.') != std::string::npos) {
    while (text.back() == '0') text.pop_back();
    if (text.back() == '.') text.pop_back();
  }
  return text + "x";
}

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

}  // namespace linkscope
