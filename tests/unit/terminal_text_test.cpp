// Terminal safety: control characters from names, versions and messages are shown, never obeyed; valid UTF-8 and
// plain text pass byte for byte.
#include <gtest/gtest.h>

#include <string>

#include "core/terminal_text.hpp"

namespace linkscope {
namespace {

using namespace std::string_literals;

TEST(TerminalText, PlainTextAndUtf8AreUnchanged) {
  for (const std::string& text : {"NVIDIA H200\tNV18\n"s, "GPU0  X  NV18\n"s, "héllo – 日本 😀"s, ""s}) {
    EXPECT_EQ(visible_controls(text), text);
  }
  EXPECT_EQ(visible_field("héllo – 日本"), "héllo – 日本");
}

TEST(TerminalText, C0ControlsAndDelAreShown) {
  EXPECT_EQ(visible_controls("a\x1b[2Jb"), "a\\x1b[2Jb");
  EXPECT_EQ(visible_controls("a\0b"s), "a\\x00b");
  EXPECT_EQ(visible_controls("a\rb\x7f\x07"), "a\\x0db\\x7f\\x07");
  // Layout stays in a document, not in a field.
  EXPECT_EQ(visible_controls("a\tb\nc"), "a\tb\nc");
  EXPECT_EQ(visible_field("a\tb\nc\r"), "a\\x09b\\x0ac\\x0d");
}

TEST(TerminalText, C1ControlsAreShownAsUtf8AndAsLoneBytes) {
  EXPECT_EQ(visible_controls("a\xc2\x9b" "31mb"), "a\\xc2\\x9b31mb");  // U+009B, CSI
  EXPECT_EQ(visible_controls("a\xc2\x85"), "a\\xc2\\x85");             // U+0085, NEL
  EXPECT_EQ(visible_controls("a\x9b" "31m"), "a\\x9b31m");             // CSI where the terminal reads 8-bit
  EXPECT_EQ(visible_controls("\xc2\xa0"), "\xc2\xa0");                 // U+00A0 is a character
}

TEST(TerminalText, BytesThatAreNotUtf8AreShown) {
  EXPECT_EQ(visible_controls("\xff"), "\\xff");
  EXPECT_EQ(visible_controls("\xe6\x97"), "\\xe6\\x97");         // cut short
  EXPECT_EQ(visible_controls("\xc0\x9b"), "\\xc0\\x9b");         // overlong
  EXPECT_EQ(visible_controls("\xed\xa0\x80"), "\\xed\\xa0\\x80");  // surrogate
  EXPECT_EQ(visible_controls("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // beyond U+10FFFF
}

}  // namespace
}  // namespace linkscope
