#include "core/text_table.hpp"

#include <algorithm>

#include "core/terminal_text.hpp"

namespace linkscope {

std::string aligned_table(const std::vector<std::vector<std::string>>& table, const std::string& indent) {
  // A cell is one value: a newline or tab in a name must not break the table's lines and columns.
  std::vector<std::vector<std::string>> rows;
  rows.reserve(table.size());
  for (const auto& cells : table) {
    std::vector<std::string>& row = rows.emplace_back();
    for (const auto& cell : cells) row.push_back(visible_field(cell));
  }
  std::vector<std::size_t> widths;
  for (const auto& row : rows) {
    if (widths.size() < row.size()) widths.resize(row.size(), 0);
    for (std::size_t c = 0; c < row.size(); ++c) widths[c] = std::max(widths[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows) {
    std::string line = indent;
    for (std::size_t c = 0; c < row.size(); ++c) {
      line += row[c];
      if (c + 1 < row.size()) line += std::string(widths[c] - row[c].size() + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

}  // namespace linkscope
