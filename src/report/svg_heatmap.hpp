#pragma once
#include <optional>
#include <string>
#include <vector>

namespace linkscope::report {

struct Heatmap {
  std::string id, title;
  std::string row_axis = "source";
  std::string column_axis = "destination";
  std::vector<std::string> labels;                          // one per row/column ("GPU0")
  std::vector<std::vector<std::optional<double>>> values;   // [row][column]; null = N/A (hatched)
  std::string unit = "GB/s";
};

// N x N matrix of values with a colour scale, the value printed in each cell (when cells are large enough),
// the diagonal greyed out and missing cells hatched "N/A".
std::string render_heatmap(const Heatmap& map);

}  // namespace linkscope::report
