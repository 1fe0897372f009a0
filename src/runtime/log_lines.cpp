#include "runtime/log_lines.hpp"

#include <charconv>
#include <cmath>

namespace linkscope::runtime {

namespace {

template <typename T>
std::optional<T> parse_whole(std::string_view digits) {
  if (digits.empty()) return std::nullopt;
  T value{};
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
  return value;
}

}  // namespace

LogLineCounts for_each_log_line(std::string_view text, const std::function<void(std::string_view)>& line,
                                LogLineLimits limits) {
  LogLineCounts counts;
  if (text.size() > limits.max_total_bytes) {
    text = text.substr(0, limits.max_total_bytes);
    counts.truncated = true;
  }
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view one = text.substr(start, end - start);
    start = end + 1;
    if (one.size() > limits.max_line_bytes) {
      ++counts.skipped_long;
      continue;
    }
    if (!one.empty() && one.back() == '\r') one.remove_suffix(1);
    ++counts.lines;
    line(one);
  }
  return counts;
}

std::optional<int> parse_log_int(std::string_view digits) { return parse_whole<int>(digits); }

std::optional<std::uint64_t> parse_log_u64(std::string_view digits) {
  if (!digits.empty() && digits.front() == '-') return std::nullopt;  // from_chars reads no sign for unsigned
  return parse_whole<std::uint64_t>(digits);
}

std::optional<double> parse_log_double(std::string_view text) {
  // Digits with at most one point, what %f prints; from_chars ignores the locale (a de_DE "370,8" never appears).
  if (text.size() > 64) return std::nullopt;
  bool point = false, digit = false;
  for (char c : text) {
    if (c == '.' && !point) {
      point = true;
    } else if (c >= '0' && c <= '9') {
      digit = true;
    } else {
      return std::nullopt;
    }
  }
  if (!digit) return std::nullopt;
  const auto value = parse_whole<double>(text);
  if (!value || !std::isfinite(*value)) return std::nullopt;
  return value;
}

}  // namespace linkscope::runtime
