#include "discover/text_util.hpp"

#include <cctype>

namespace linkscope::discover {

std::string trim_spaces(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front()))) text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  return std::string(text);
}

std::vector<std::string> split_list(std::string_view text, char separator) {
  std::vector<std::string> items;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(separator, start);
    if (end == std::string_view::npos) end = text.size();
    items.push_back(trim_spaces(text.substr(start, end - start)));
    start = end + 1;
  }
  return items;
}

}  // namespace linkscope::discover
