#include "report/report_format.hpp"

#include <cctype>

namespace linkscope::report {

std::string severity_label(model::Severity severity) {
  switch (severity) {
    case model::Severity::kError: return "ERROR";
    case model::Severity::kWarning: return "WARNING";
    case model::Severity::kInfo: break;
  }
  return "INFO";
}

std::string clip(const std::string& text, std::size_t width) {
  if (text.size() <= width || width < 4) return text;
  std::size_t cut = width - 3;
  // Step back over UTF-8 continuation bytes so a character is never split.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return text.substr(0, cut) + "...";
}

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        // Control characters are not allowed in XML 1.0 text (SVG is XML).
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') {
          out += ' ';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string slug(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      out += static_cast<char>(std::tolower(u));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

}  // namespace linkscope::report
