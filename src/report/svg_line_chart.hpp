#pragma once
#include <optional>
#include <string>
#include <vector>

#include "report/report_data.hpp"

namespace linkscope::report {

struct ReferenceLine {
  std::string label;  // "link rate 478.1 GB/s"
  double value = 0;
};

struct LineChart {
  std::string id;       // unique within a page ("p2p-ce")
  std::string title;    // drawn above the plot
  std::string y_label;  // "GB/s"
  std::vector<Series> series;
  std::vector<ReferenceLine> references;
};

// Value against message size with a log2 x axis (powers of two, labelled 1K, 1M, 1G), one colour per series,
// legend on the right. Empty string when there is nothing to draw.
std::string render_line_chart(const LineChart& chart);

// More than `max_series` curves are unreadable: summarize them as the median, slowest and fastest value per size.
std::vector<Series> summarize_series(const std::vector<Series>& series, std::size_t max_series,
                                     const std::string& what);

}  // namespace linkscope::report
