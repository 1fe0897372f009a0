#include "discover/cpu_list.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <fmt/format.h>

#include "core/text.hpp"

namespace linkscope {

namespace {
int parse_cpu_number(std::string_view text, std::string_view whole) {
  if (text.empty() || text.size() > 7) throw std::invalid_argument(fmt::format("bad CPU list '{}'", whole));
  int value = 0;
  for (char c : text) {
    if (!std::isdigit(static_cast<unsigned char>(c))) throw std::invalid_argument(fmt::format("bad CPU list '{}'", whole));
    value = value * 10 + (c - '0');
  }
  return value;
}
}  // namespace

std::vector<int> parse_cpu_list(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  std::vector<int> cpus;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string_view::npos) comma = text.size();
    const std::string_view item = text.substr(start, comma - start);
    const std::size_t dash = item.find('-');
    if (dash == std::string_view::npos) {
      cpus.push_back(parse_cpu_number(item, text));
    } else {
      const int first = parse_cpu_number(item.substr(0, dash), text);
      const int last = parse_cpu_number(item.substr(dash + 1), text);
      if (last < first) throw std::invalid_argument(fmt::format("bad CPU list '{}'", text));
      for (int cpu = first; cpu <= last; ++cpu) cpus.push_back(cpu);
    }
    start = comma + 1;
  }
  return cpus;
}

std::string format_cpu_list(std::vector<int> cpus) { return format_ranges(std::move(cpus), ","); }

}  // namespace linkscope
