#pragma once
#include <optional>
#include <string>
#include <vector>

namespace linkscope::report {

struct Bar {
  std::string label;             // "default (P2P/direct pointer)"
  std::optional<double> value;   // null: drawn as a hatched stub with `note`
  std::string note;              // "1.00x", "error: ..."
};

struct BarChart {
  std::string id, title, unit = "GB/s";
  std::vector<Bar> bars;
  std::optional<double> reference;  // e.g. the link rate
  std::string reference_label;
};

// Horizontal bars with the value at the end of each bar and an optional dashed reference line.
std::string render_bar_chart(const BarChart& chart);

}  // namespace linkscope::report
