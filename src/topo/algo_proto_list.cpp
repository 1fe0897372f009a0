#include "topo/algo_proto_list.hpp"

#include <strings.h>

#include <fmt/format.h>

namespace linkscope::topo {

namespace {

struct Token {
  std::string text;
  std::size_t offset = 0;  // where it starts in the split string
};

// strtok_r: tokens between runs of `delimiter`, empty tokens skipped.
std::vector<Token> tokens(const std::string& text, char delimiter) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && text[i] == delimiter) ++i;
    if (i == text.size()) break;
    const std::size_t end = text.find(delimiter, i);
    const std::size_t stop = end == std::string::npos ? text.size() : end;
    out.push_back({text.substr(i, stop - i), i});
    i = stop;
  }
  return out;
}

}  // namespace

std::string parse_enable_list(const std::string& text, const std::vector<const char*>& prefixes,
                              const std::vector<const char*>& names, std::vector<int>& enabled) {
  for (const Token& entry : tokens(text, ';')) {
    const std::vector<Token> parts = tokens(entry.text, ':');
    std::string prefix;
    std::string list;
    bool has_prefix = parts.size() >= 2;  // a third part, if any, is ignored as in NCCL
    if (has_prefix) {
      prefix = parts[0].text;
      list = parts[1].text;
    } else {
      // Only the first entry, starting the string, may go without a prefix.
      if (entry.offset != 0) return fmt::format("All entries except the first must have a prefix: \"{}\"", text);
      list = parts.empty() ? std::string() : parts[0].text;
    }
    int unset = 0;
    int set = 1;
    if (!list.empty() && list[0] == '^') {
      unset = 1;
      set = 0;
      list.erase(0, 1);
    }
    bool found_prefix = false;
    for (std::size_t p = 0; p < prefixes.size(); ++p) {
      if (has_prefix && strcasecmp(prefix.c_str(), prefixes[p]) != 0) continue;
      found_prefix = true;
      for (std::size_t e = 0; e < names.size(); ++e) enabled[p * names.size() + e] = unset;
      for (const Token& element : tokens(list, ',')) {
        std::size_t e = 0;
        while (e < names.size() && strcasecmp(element.text.c_str(), names[e]) != 0) ++e;
        if (e == names.size()) {
          return fmt::format("Unrecognized element token \"{}\" when parsing \"{}\"", element.text, text);
        }
        enabled[p * names.size() + e] = set;
      }
    }
    if (!found_prefix) return fmt::format("Unrecognized prefix token \"{}\" when parsing \"{}\"", prefix, text);
  }
  return "";
}

}  // namespace linkscope::topo
