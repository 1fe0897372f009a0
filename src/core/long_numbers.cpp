#include "core/long_numbers.hpp"

#include <cctype>

#include <fmt/format.h>

namespace linkscope {

std::string clip_long_numbers(std::string_view text) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t end = i;
    while (end < text.size() && std::isdigit(static_cast<unsigned char>(text[end]))) ++end;
    if (end == i) {
      out += text[i++];
      continue;
    }
    const std::size_t digits = end - i;
    if (digits <= kMaxMessageDigits) {
      out += text.substr(i, digits);
    } else {
      out += fmt::format("{}... ({} digits)", text.substr(i, kMaxMessageDigits), digits);
    }
    i = end;
  }
  return out;
}

}  // namespace linkscope
