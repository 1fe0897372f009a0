#include "report/svg_heatmap.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/text.hpp"
#include "report/report_format.hpp"
#include "report/svg_canvas.hpp"

namespace linkscope::report {

namespace {

// Light (#eff3ff) to dark blue (#08519c) by share of the range.
std::string scale_color(double t) {
  t = std::clamp(t, 0.0, 1.0);
  const int r = static_cast<int>(std::lround(0xef + (0x08 - 0xef) * t));
  const int g = static_cast<int>(std::lround(0xf3 + (0x51 - 0xf3) * t));
  const int b = static_cast<int>(std::lround(0xff + (0x9c - 0xff) * t));
  return fmt::format("#{:02x}{:02x}{:02x}", r, g, b);
}

}  // namespace

std::string render_heatmap(const Heatmap& map) {
  const std::size_t n = map.labels.size();
  if (n == 0) return "";
  // Cells shrink for many GPUs so the drawing stays within ~700 px; values are printed while cells are wide enough.
  const double cell = std::clamp(560.0 / static_cast<double>(n), 18.0, 72.0);
  const bool print_values = cell >= 44;
  const double left = 70, top = 58;
  const double grid = cell * static_cast<double>(n);
  const std::string legend = map.unit + "; grey = same GPU; hatched = not measured (N/A)";
  // Wide enough for the title (about 8.4 px per character at 14 px bold) and the legend line (6.2 px at 11 px).
  const double width = std::max({left + grid + 110, 16 + 8.4 * static_cast<double>(map.title.size()),
                                 left + 10 + 6.2 * static_cast<double>(legend.size())});
  const double height = top + grid + 48;

  double lo = 0, hi = 0;
  bool any = false;
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t c = 0; c < n; ++c) {
      if (r == c || r >= map.values.size() || c >= map.values[r].size() || !map.values[r][c]) continue;
      lo = any ? std::min(lo, *map.values[r][c]) : *map.values[r][c];
      hi = any ? std::max(hi, *map.values[r][c]) : *map.values[r][c];
      any = true;
    }
  }

  SvgCanvas svg(width, height, map.id, map.title);
  svg.raw(fmt::format("<defs><pattern id=\"{0}-hatch\" width=\"6\" height=\"6\" patternUnits=\"userSpaceOnUse\" "
                      "patternTransform=\"rotate(45)\"><rect width=\"6\" height=\"6\" fill=\"#f4f4f4\"/>"
                      "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"6\" stroke=\"#b0b0b0\" stroke-width=\"2\"/></pattern>"
                      "<linearGradient id=\"{0}-scale\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">"
                      "<stop offset=\"0\" stop-color=\"{1}\"/><stop offset=\"1\" stop-color=\"{2}\"/>"
                      "</linearGradient></defs>\n",
                      escape_html(map.id), scale_color(0), scale_color(1)));
  svg.rect(0, 0, width, height, "#ffffff");
  svg.text(8, 20, map.title, 14, "start", "#222", "bold");
  svg.text(left + grid / 2, top - 24, map.column_axis + " \u2192", 11, "middle", "#555");
  svg.element("text", {{"x", svg_number(14)}, {"y", svg_number(top + grid / 2)}, {"font-size", "11"},
                       {"fill", "#555"}, {"text-anchor", "middle"},
                       {"transform", fmt::format("rotate(-90 14 {})", svg_number(top + grid / 2))}},
              map.row_axis + " \u2192");
  const double label_size = std::min(12.0, cell * 0.42);
  for (std::size_t i = 0; i < n; ++i) {
    const double center = static_cast<double>(i) * cell + cell / 2;
    svg.text(left + center, top - 6, map.labels[i], label_size, "middle", "#222");
    svg.text(left - 6, top + center + label_size / 3, map.labels[i], label_size, "end", "#222");
  }
  for (std::size_t r = 0; r < n; ++r) {
    for (std::size_t c = 0; c < n; ++c) {
      const double x = left + static_cast<double>(c) * cell, y = top + static_cast<double>(r) * cell;
      const std::optional<double> value =
          r < map.values.size() && c < map.values[r].size() ? map.values[r][c] : std::nullopt;
      if (r == c) {
        svg.rect(x, y, cell, cell, "#d9d9d9", "#ffffff");
        continue;
      }
      if (!value) {
        svg.rect(x, y, cell, cell, fmt::format("url(#{}-hatch)", map.id), "#ffffff");
        if (print_values) svg.text(x + cell / 2, y + cell / 2 + 4, "N/A", 11, "middle", "#555");
        continue;
      }
      // The scale starts at half the best value (or lower), so equal healthy pairs look equal and a slow pair
      // stands out by how much slower it is, not by a 0.1% difference stretched over the whole scale.
      const double floor = std::min(lo, hi * 0.5);
      const double t = hi > floor ? (*value - floor) / (hi - floor) : 1.0;
      svg.open("g", {});
      svg.element("title", {}, fmt::format("{} \u2192 {}: {} {}", map.labels[r], map.labels[c],
                                           format_number(*value), map.unit));
      svg.rect(x, y, cell, cell, scale_color(t), "#ffffff");
      if (print_values) {
        svg.text(x + cell / 2, y + cell / 2 + 4, format_number(*value), std::min(12.0, cell * 0.24), "middle",
                 t > 0.55 ? "#ffffff" : "#111111");
      }
      svg.close("g");
    }
  }
  // Colour scale.
  const double bar_x = left + grid + 24;
  svg.rect(bar_x, top, 14, grid, fmt::format("url(#{}-scale)", map.id), "#999");
  if (any) {
    svg.text(bar_x + 20, top + 10, format_number(hi), 11, "start", "#222");
    svg.text(bar_x + 20, top + grid, format_number(std::min(lo, hi * 0.5)), 11, "start", "#222");
  }
  svg.text(left, top + grid + 18, legend, 11, "start", "#555");
  return svg.finish();
}

}  // namespace linkscope::report
