#include "core/size.hpp"

#include <cctype>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/error.hpp"

namespace linkscope {

namespace {

[[noreturn]] void bad_size(std::string_view what, std::string_view text, std::string_view why) {
  throw UsageError(fmt::format("invalid {} '{}': {} (expected e.g. 8, 64K, 1M, 8G)", what, text, why));
}

// The limit, as the message must say what fits.
std::string too_large() {
  return fmt::format("too large (at most {} bytes)", std::numeric_limits<std::uint64_t>::max());
}

int shift_for_suffix(char c) {
  switch (std::toupper(static_cast<unsigned char>(c))) {
    case 'K': return 10;
    case 'M': return 20;
    case 'G': return 30;
    case 'T': return 40;
    default: return -1;
  }
}

}  // namespace

std::uint64_t parse_size(std::string_view text, std::string_view what) {
  if (text.empty()) bad_size(what, text, "empty");
  std::size_t pos = 0;
  std::uint64_t whole = 0;
  bool digits = false;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
    const unsigned digit = static_cast<unsigned>(text[pos] - '0');
    if (whole > (std::numeric_limits<std::uint64_t>::max() - digit) / 10) bad_size(what, text, too_large());
    whole = whole * 10 + digit;
    digits = true;
    ++pos;
  }
  // The fraction is kept as an exact decimal numerator/denominator to avoid float rounding.
  std::uint64_t frac_num = 0, frac_den = 1;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
      if (frac_den < 1000000000000ULL) {
        frac_num = frac_num * 10 + static_cast<unsigned>(text[pos] - '0');
        frac_den *= 10;
      }
      digits = true;
      ++pos;
    }
  }
  if (!digits) bad_size(what, text, text[0] == '-' ? "negative" : "not a number");
  int shift = 0;
  if (pos < text.size()) {
    shift = shift_for_suffix(text[pos]);
    if (shift >= 0) {
      ++pos;
      if (pos < text.size() && (text[pos] == 'i' || text[pos] == 'I')) ++pos;
    } else {
      shift = 0;
    }
    if (pos < text.size() && (text[pos] == 'B' || text[pos] == 'b')) ++pos;
  }
  if (pos != text.size()) bad_size(what, text, fmt::format("unexpected '{}'", text.substr(pos)));

  const std::uint64_t unit = std::uint64_t{1} << shift;
  if (whole > std::numeric_limits<std::uint64_t>::max() / unit) bad_size(what, text, too_large());
  const std::uint64_t frac_bytes_num = frac_num * unit;  // frac_num < 1e12, unit <= 2^40: may overflow, so check
  if (frac_num != 0 && frac_bytes_num / unit != frac_num) bad_size(what, text, "too many fraction digits");
  if (frac_bytes_num % frac_den != 0) bad_size(what, text, "not a whole number of bytes");
  const std::uint64_t result = whole * unit + frac_bytes_num / frac_den;
  if (result < whole * unit) bad_size(what, text, too_large());
  return result;
}

std::string format_size(std::uint64_t bytes) {
  static constexpr struct { int shift; char suffix; } kUnits[] = {{40, 'T'}, {30, 'G'}, {20, 'M'}, {10, 'K'}};
  for (const auto& unit : kUnits) {
    const std::uint64_t scale = std::uint64_t{1} << unit.shift;
    if (bytes < scale) continue;
    if (bytes % scale == 0) return fmt::format("{}{}", bytes / scale, unit.suffix);
    // Use a single decimal only when it is exact (1.5G), else fall back to the next smaller unit.
    if ((bytes * 10) % scale == 0 && bytes < (std::uint64_t{1} << 60)) {
      return fmt::format("{}.{}{}", bytes / scale, (bytes * 10 / scale) % 10, unit.suffix);
    }
  }
  return fmt::format("{}", bytes);
}

}  // namespace linkscope
