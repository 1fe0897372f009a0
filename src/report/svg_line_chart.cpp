#include "report/svg_line_chart.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "core/size.hpp"
#include "core/text.hpp"
#include "report/report_format.hpp"
#include "report/svg_canvas.hpp"

namespace linkscope::report {

namespace {

constexpr double kWidth = 760, kHeight = 360;
constexpr double kLeft = 64, kRight = 540, kTop = 40, kBottom = 300;

// The first of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8 x 10^k at or above `value` (the y axis top).
double nice_ceiling(double value) {
  if (value <= 0) return 1;
  const double power = std::pow(10.0, std::floor(std::log10(value)));
  for (const double step : {1.0, 1.2, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0}) {
    if (step * power >= value) return step * power;
  }
  return 10 * power;
}

}  // namespace

std::string render_line_chart(const LineChart& chart) {
  std::uint64_t min_bytes = 0, max_bytes = 0;
  double max_value = 0;
  bool any = false;
  for (const auto& series : chart.series) {
    for (const auto& p : series.points) {
      if (p.bytes == 0) continue;
      min_bytes = any ? std::min(min_bytes, p.bytes) : p.bytes;
      max_bytes = any ? std::max(max_bytes, p.bytes) : p.bytes;
      max_value = std::max(max_value, p.value);
      any = true;
    }
  }
  if (!any) return "";
  for (const auto& r : chart.references) max_value = std::max(max_value, r.value);
  const double y_max = nice_ceiling(max_value * 1.05);
  double x_lo = std::floor(std::log2(static_cast<double>(min_bytes)));
  double x_hi = std::ceil(std::log2(static_cast<double>(max_bytes)));
  if (x_hi <= x_lo) {
    x_lo -= 1;
    x_hi += 1;
  }
  auto x_of = [&](double bytes) { return kLeft + (std::log2(bytes) - x_lo) / (x_hi - x_lo) * (kRight - kLeft); };
  auto y_of = [&](double value) { return kBottom - value / y_max * (kBottom - kTop); };

  SvgCanvas svg(kWidth, kHeight, chart.id, chart.title);
  svg.rect(0, 0, kWidth, kHeight, "#ffffff");
  svg.text(kLeft, 22, chart.title, 14, "start", "#222", "bold");
  // Grid and y axis.
  for (int i = 0; i <= 5; ++i) {
    const double value = y_max * i / 5.0;
    const double y = y_of(value);
    svg.line(kLeft, y, kRight, y, i == 0 ? "#444" : "#e3e3e3");
    const std::string label = value == std::floor(value) ? fmt::format("{:.0f}", value) : format_number(value);
    svg.text(kLeft - 6, y + 4, label, 11, "end", "#444");
  }
  svg.text(16, (kTop + kBottom) / 2, chart.y_label, 12, "middle", "#444");
  // X ticks at powers of two, at most ~12 labels.
  const int span = static_cast<int>(x_hi - x_lo);
  const int step = std::max(1, (span + 11) / 12);
  for (int e = static_cast<int>(x_lo); e <= static_cast<int>(x_hi); ++e) {
    const double x = x_of(std::pow(2.0, e));
    const bool labelled = (e - static_cast<int>(x_lo)) % step == 0;
    svg.line(x, kBottom, x, labelled ? kBottom + 5 : kBottom + 3, "#444");
    if (labelled) {
      svg.line(x, kTop, x, kBottom, "#f0f0f0");
      svg.text(x, kBottom + 18, format_size(static_cast<std::uint64_t>(1) << e), 11, "middle", "#444");
    }
  }
  svg.line(kLeft, kTop, kLeft, kBottom, "#444");
  svg.text((kLeft + kRight) / 2, kBottom + 40, "message size (bytes, log2 scale; K/M/G = 1024-based)", 12, "middle",
           "#444");
  // Reference lines.
  for (const auto& r : chart.references) {
    const double y = y_of(r.value);
    svg.line(kLeft, y, kRight, y, "#888", 1, "6 4");
    svg.text(kRight - 4, y - 5, r.label, 11, "end", "#555");
  }
  // Series.
  double legend_y = kTop + 6;
  for (std::size_t i = 0; i < chart.series.size(); ++i) {
    const auto& series = chart.series[i];
    const std::string color = series_color(i);
    std::string points;
    for (const auto& p : series.points) {
      if (p.bytes == 0) continue;
      if (!points.empty()) points += ' ';
      points += svg_number(x_of(static_cast<double>(p.bytes))) + "," + svg_number(y_of(p.value));
    }
    svg.element("polyline", {{"points", points}, {"fill", "none"}, {"stroke", color}, {"stroke-width", "2"}});
    for (const auto& p : series.points) {
      if (p.bytes == 0) continue;
      svg.element("circle", {{"cx", svg_number(x_of(static_cast<double>(p.bytes)))},
                             {"cy", svg_number(y_of(p.value))},
                             {"r", "2.5"},
                             {"fill", color}});
    }
    if (i < 14) {
      svg.rect(kRight + 18, legend_y - 9, 14, 4, color);
      svg.text(kRight + 38, legend_y - 4, clip(series.name, 30), 11, "start", "#222");
      legend_y += 18;
    }
  }
  if (chart.series.size() > 14) {
    svg.text(kRight + 18, legend_y, fmt::format("+ {} more", chart.series.size() - 14), 11, "start", "#555");
  }
  return svg.finish();
}

std::vector<Series> summarize_series(const std::vector<Series>& series, std::size_t max_series,
                                     const std::string& what) {
  if (series.size() <= max_series) return series;
  std::map<std::uint64_t, std::vector<double>> by_size;
  for (const auto& s : series) {
    for (const auto& p : s.points) by_size[p.bytes].push_back(p.value);
  }
  Series median{fmt::format("median of {} {}", series.size(), what), {}};
  Series slowest{"slowest " + what, {}};
  Series fastest{"fastest " + what, {}};
  for (auto& [bytes, values] : by_size) {
    std::sort(values.begin(), values.end());
    median.points.push_back({bytes, median_of(values)});
    slowest.points.push_back({bytes, values.front()});
    fastest.points.push_back({bytes, values.back()});
  }
  return {median, slowest, fastest};
}

}  // namespace linkscope::report
