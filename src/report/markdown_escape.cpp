#include "report/markdown_escape.hpp"

#include <algorithm>
#include <cctype>

namespace linkscope::report {

namespace {

bool ascii_punctuation(char c) { return std::ispunct(static_cast<unsigned char>(c)) != 0; }
bool ascii_letter(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }
bool ascii_alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// What follows `i`, or '\0' at the end.
char next_of(std::string_view text, std::size_t i) { return i + 1 < text.size() ? text[i + 1] : '\0'; }

// CommonMark's raw-HTML and autolink starts: "<a", "</", "<!", "<?". "<=" and "< 5" stay text.
bool opens_tag(std::string_view text, std::size_t i) {
  const char next = next_of(text, i);
  return ascii_letter(next) || next == '/' || next == '!' || next == '?';
}

// "&amp;", "&#60;", "&#x3c;": an entity reference needs a name or '#' right after the ampersand.
bool opens_entity(std::string_view text, std::size_t i) {
  const char next = next_of(text, i);
  return ascii_alnum(next) || next == '#';
}

// "1." or "12)" followed by a space or the end: an ordered list item.
bool ordered_list_marker(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && digits < 9 && std::isdigit(static_cast<unsigned char>(text[digits])) != 0) ++digits;
  if (digits == 0 || digits >= text.size() || (text[digits] != '.' && text[digits] != ')')) return false;
  return digits + 1 == text.size() || text[digits + 1] == ' ' || text[digits + 1] == '\t';
}

}  // namespace

std::string markdown_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    switch (c) {
      case '\r':
      case '\n': out += ' '; break;
      case '`': out += "\\`"; break;
      case '|': out += "\\|"; break;
      case '<': out += opens_tag(text, i) ? "&lt;" : "<"; break;
      case '&': out += opens_entity(text, i) ? "&amp;" : "&"; break;
      // Only a backslash before punctuation escapes anything: "src \ dst" stays as it is.
      case '\\': out += ascii_punctuation(next_of(text, i)) || next_of(text, i) == '\0' ? "\\\\" : "\\"; break;
      case '(': out += i > 0 && text[i - 1] == ']' ? "\\(" : "("; break;
      default: out += c;
    }
  }
  return out;
}

std::string markdown_line(std::string_view text) {
  const std::string inline_text = markdown_text(text);
  if (inline_text.empty()) return inline_text;
  const char first = inline_text.front();
  const bool marker = first == '#' || first == '>' || first == '-' || first == '+' || first == '*' || first == '[' ||
                      ordered_list_marker(inline_text);
  if (!marker) return inline_text;
  if (first == '#' || first == '>' || first == '-' || first == '+' || first == '*' || first == '[') {
    return "\\" + inline_text;
  }
  // "1. text" -> "1\. text": the digits stay, the list marker does not.
  const std::size_t dot = inline_text.find_first_of(".)");
  return inline_text.substr(0, dot) + "\\" + inline_text.substr(dot);
}

std::string markdown_code(std::string_view text) {
  std::string content(text);
  std::replace(content.begin(), content.end(), '\n', ' ');
  std::replace(content.begin(), content.end(), '\r', ' ');
  std::size_t longest = 0, run = 0;
  for (const char c : content) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  const bool all_spaces = content.find_first_not_of(' ') == std::string::npos;
  // CommonMark strips one space at each end when both ends have one; a backtick at an end would join the fence.
  const bool pad = !content.empty() && (content.front() == '`' || content.back() == '`' ||
                                        (!all_spaces && content.front() == ' ' && content.back() == ' '));
  const std::string space = pad ? " " : "";
  return fence + space + content + space + fence;
}

}  // namespace linkscope::report
