#include "report/fleet_section.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/terminal_text.hpp"
#include "core/text.hpp"
#include "report/report_format.hpp"
#include "report/svg_canvas.hpp"

namespace linkscope::report {

namespace {

// A chart of more rows than this is unreadable: it shows the outside ones and the worst of the rest.
constexpr std::size_t kChartRows = 40;
// The terminal lists this many numbers outside the fleet.
constexpr std::size_t kTextLines = 10;

// The judged numbers, the outside ones first, then the worst relative to the fleet.
std::vector<const model::FleetMetric*> ordered(const model::FleetComparison& fleet) {
  std::vector<const model::FleetMetric*> items;
  for (const auto& m : fleet.metrics) items.push_back(&m);
  const auto badness = [](const model::FleetMetric* m) { return m->higher_is_better ? -m->relative : m->relative; };
  std::stable_sort(items.begin(), items.end(), [&](const auto* a, const auto* b) {
    if (a->outside != b->outside) return a->outside;
    return badness(a) > badness(b);
  });
  return items;
}

double share_of_median(double value, double median) { return median != 0 ? value / median : 1.0; }

}  // namespace

bool has_fleet(const model::Run& run) { return run.fleet.has_value(); }

Table fleet_table(const model::FleetComparison& fleet) {
  Table table;
  table.header = {"subject", "metric", "value", "fleet median", "MAD", "p5-p95", "n", "difference", "robust z", ""};
  for (const auto* m : ordered(fleet)) {
    table.rows.push_back({text_cell(m->subject.empty() ? "host" : m->subject),
                          text_cell(m->category + " " + m->metric),
                          number_cell(format_number(m->value) + " " + m->unit),
                          number_cell(format_number(m->fleet.median)),
                          number_cell(format_number(m->fleet.mad)),
                          number_cell(format_number(m->fleet.p5) + "-" + format_number(m->fleet.p95)),
                          number_cell(std::to_string(m->fleet.count)),
                          number_cell(fmt::format("{:+.1f}%", m->relative * 100.0)),
                          number_cell(m->robust_z ? fmt::format("{:.1f}", *m->robust_z) : "-"),
                          text_cell(m->outside ? "OUTSIDE" : "within")});
  }
  return table;
}

std::string render_fleet_text(const model::FleetComparison& fleet) {
  std::string out = fmt::format("\nFleet ({}): machine type {}\n", visible_field(fleet.baseline),
                                visible_field(fleet.machine_type));
  if (!fleet.type_in_baseline) return out + "  not in the baseline: nothing judged against the fleet\n";
  out += fmt::format("  {} number(s) judged against {} host(s) of this type, {} outside the fleet (worse by more "
                     "than {} and {:g} robust z), {} not in the baseline\n",
                     fleet.metrics.size(), fleet.baseline_hosts, fleet.outside_count(),
                     format_percent(fleet.relative_threshold), fleet.z_threshold, fleet.not_in_baseline);
  // The worst first, a screenful at most: the report's Fleet section lists every number.
  std::size_t listed = 0;
  for (const auto* m : ordered(fleet)) {
    if (!m->outside || listed == kTextLines) break;
    out += "  " + visible_field(model::fleet_metric_text(fleet, *m)) + "\n";
    ++listed;
  }
  if (listed < static_cast<std::size_t>(fleet.outside_count())) {
    out += fmt::format("  ... and {} more outside (report.md, report.html list every number)\n",
                       static_cast<std::size_t>(fleet.outside_count()) - listed);
  }
  return out;
}

std::string fleet_svg(const model::FleetComparison& fleet) {
  std::vector<const model::FleetMetric*> rows = ordered(fleet);
  if (rows.empty()) return "";
  if (rows.size() > kChartRows) rows.resize(kChartRows);
  const double left = 330, right = 720, top = 52, row = 20;
  const double width = 780, height = top + row * static_cast<double>(rows.size()) + 40;
  // The x axis is the share of the fleet median, wide enough for every band and dot.
  double low = 0.9, high = 1.1;
  for (const auto* m : rows) {
    for (double v : {m->value, m->fleet.p5, m->fleet.p95}) {
      low = std::min(low, share_of_median(v, m->fleet.median));
      high = std::max(high, share_of_median(v, m->fleet.median));
    }
  }
  low = std::max(0.0, low - 0.05);
  high += 0.05;
  const auto x_of = [&](double share) { return left + (share - low) / (high - low) * (right - left); };

  SvgCanvas svg(width, height, "fleet", "this host against the fleet");
  svg.rect(0, 0, width, height, "#ffffff");
  svg.text(8, 22, fmt::format("{} against the fleet ({} hosts): share of the fleet median", fleet.host,
                              fleet.baseline_hosts), 14, "start", "#222", "bold");
  svg.text(8, 40, "grey band: the fleet's p5-p95; black tick: its median; dot: this host (red: outside)", 11,
           "start", "#555");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& m = *rows[i];
    const double y = top + row * static_cast<double>(i);
    const double mid = y + row / 2;
    svg.text(left - 8, mid + 4, clip((m.subject.empty() ? "" : m.subject + " ") + m.metric, 52), 11, "end", "#222");
    const double band_left = x_of(share_of_median(m.fleet.p5, m.fleet.median));
    const double band_right = x_of(share_of_median(m.fleet.p95, m.fleet.median));
    svg.rect(band_left, y + 5, std::max(1.0, band_right - band_left), row - 10, "#d9d9d9");
    svg.line(x_of(1.0), y + 3, x_of(1.0), y + row - 3, "#222", 1.5);
    const double x = x_of(share_of_median(m.value, m.fleet.median));
    svg.element("circle", {{"cx", svg_number(x)}, {"cy", svg_number(mid)}, {"r", "4"},
                           {"fill", m.outside ? "#d55e00" : "#0072b2"}});
  }
  const double bottom = top + row * static_cast<double>(rows.size());
  svg.line(left, bottom, right, bottom, "#444");
  for (double tick : {low, 1.0, high}) {
    svg.line(x_of(tick), bottom, x_of(tick), bottom + 4, "#444");
    svg.text(x_of(tick), bottom + 16, fmt::format("{:.0f}%", tick * 100.0), 11, "middle", "#555");
  }
  return svg.finish();
}

}  // namespace linkscope::report
