#include "core/terminal_text.hpp"

#include <cstdio>

#include <fmt/format.h>

#include "core/file_io.hpp"

namespace linkscope {

namespace {

bool continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

// The length of the valid UTF-8 sequence starting at `i` (1 for ASCII), or 0 where the bytes are not UTF-8
// (a stray continuation byte, an overlong form, a surrogate, beyond U+10FFFF, cut short).
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the range of the second byte
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  const auto second = static_cast<unsigned char>(text[i + 1]);
  if (second < low || second > high) return 0;
  for (std::size_t k = 2; k < length; ++k) {
    if (!continuation(static_cast<unsigned char>(text[i + k]))) return 0;
  }
  return length;
}

bool c0_or_del(unsigned char c, bool keep_layout) {
  if (keep_layout && (c == '\t' || c == '\n')) return false;
  return c < 0x20 || c == 0x7F;
}

// U+0080..U+009F is C2 80..C2 9F in UTF-8.
bool c1_sequence(std::string_view text, std::size_t i, std::size_t length) {
  return length == 2 && static_cast<unsigned char>(text[i]) == 0xC2 &&
         static_cast<unsigned char>(text[i + 1]) <= 0x9F;
}

void append_hex(std::string& out, std::string_view bytes) {
  for (const char c : bytes) out += fmt::format("\\x{:02x}", static_cast<unsigned char>(c));
}

std::string visible(std::string_view text, bool keep_layout) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const std::size_t length = utf8_length(text, i);
    if (length == 0) {
      append_hex(out, text.substr(i, 1));
      ++i;
    } else if ((length == 1 && c0_or_del(static_cast<unsigned char>(text[i]), keep_layout)) ||
               c1_sequence(text, i, length)) {
      append_hex(out, text.substr(i, length));
      i += length;
    } else {
      out.append(text, i, length);
      i += length;
    }
  }
  return out;
}

}  // namespace

std::string visible_controls(std::string_view text) { return visible(text, true); }

std::string visible_field(std::string_view text) { return visible(text, false); }

void write_text_stdout(std::string_view text) { write_stdout(visible_controls(text)); }

void print_stderr_line(std::string_view line) {
  const std::string text = visible_field(line) + "\n";
  std::fwrite(text.data(), 1, text.size(), stderr);
}

}  // namespace linkscope
