#pragma once
#include <string>
#include <string_view>

namespace linkscope {

// The longest run of digits an error message prints whole: every limit linkscope states fits (2^64 - 1 has 20).
inline constexpr std::size_t kMaxMessageDigits = 20;

// `text` with each longer run of digits clipped: "99999999999999999999... (300 digits)". Errors quote what the
// user typed; a 300-digit number must not fill the terminal.
std::string clip_long_numbers(std::string_view text);

}  // namespace linkscope
