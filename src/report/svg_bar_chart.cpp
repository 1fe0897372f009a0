#include "report/svg_bar_chart.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/text.hpp"
#include "report/report_format.hpp"
#include "report/svg_canvas.hpp"

namespace linkscope::report {

std::string render_bar_chart(const BarChart& chart) {
  if (chart.bars.empty()) return "";
  const double left = 230, right = 620, top = 44, row = 30;
  const double height = top + row * static_cast<double>(chart.bars.size()) + 36;
  const double width = 760;
  double max_value = chart.reference.value_or(0);
  for (const auto& bar : chart.bars) max_value = std::max(max_value, bar.value.value_or(0));
  if (max_value <= 0) max_value = 1;
  auto x_of = [&](double v) { return left + v / max_value * (right - left); };

  SvgCanvas svg(width, height, chart.id, chart.title);
  svg.raw(fmt::format("<defs><pattern id=\"{}-hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
                      "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#f4f4f4\"/>"
                      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#b0b0b0\" stroke-width=\"2\"/></pattern>"
                      "</defs>\n",
                      escape_html(chart.id)));
  svg.rect(0, 0, width, height, "#ffffff");
  svg.text(8, 22, chart.title, 14, "start", "#222", "bold");
  for (std::size_t i = 0; i < chart.bars.size(); ++i) {
    const auto& bar = chart.bars[i];
    const double y = top + row * static_cast<double>(i);
    svg.text(left - 8, y + row / 2 + 4, clip(bar.label, 34), 12, "end", "#222");
    if (bar.value) {
      svg.rect(left, y + 5, std::max(1.0, x_of(*bar.value) - left), row - 10, series_color(i == 0 ? 0 : 1));
      svg.text(x_of(*bar.value) + 6, y + row / 2 + 4,
               format_number(*bar.value) + " " + chart.unit + (bar.note.empty() ? "" : "  " + bar.note), 11,
               "start", "#222");
    } else {
      svg.rect(left, y + 5, 60, row - 10, fmt::format("url(#{}-hatch)", chart.id), "#999");
      svg.text(left + 66, y + row / 2 + 4, bar.note.empty() ? "not measured" : clip(bar.note, 40), 11, "start",
               "#555");
    }
  }
  const double bottom = top + row * static_cast<double>(chart.bars.size());
  svg.line(left, top, left, bottom, "#444");
  if (chart.reference) {
    const double x = x_of(*chart.reference);
    svg.line(x, top - 4, x, bottom, "#888", 1, "6 4");
    svg.text(x, bottom + 16, chart.reference_label, 11, "middle", "#555");
  }
  return svg.finish();
}

}  // namespace linkscope::report
