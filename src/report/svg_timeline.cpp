#include "report/svg_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include <fmt/format.h>

#include "report/report_format.hpp"
#include "report/svg_canvas.hpp"

namespace linkscope::report {

namespace {

constexpr double kLeft = 118, kRight = 24, kTitle = 30, kStepBand = 24, kPlot = 64, kPanelGap = 18;
constexpr double kProcessRow = 14, kAxis = 30, kNoteLine = 15;
constexpr const char* kStepFills[] = {"#dbe9f6", "#fbe3d6"};
constexpr const char* kForeign = "#D55E00";
constexpr const char* kXid = "#C00000";

struct Frame {
  double x0 = 0, x1 = 0, t_end = 1;
  double x(double t) const { return x0 + (x1 - x0) * std::clamp(t / t_end, 0.0, 1.0); }
};

// The last moment anything was recorded.
double run_end(const model::Telemetry& t) {
  double end = t.duration_s;
  for (const auto& gpu : t.gpus) {
    for (const auto& s : gpu.samples) end = std::max(end, s.t_s + s.span_s);
  }
  for (const auto& step : t.steps) end = std::max(end, step.end_s.value_or(step.start_s));
  for (const auto& p : t.processes) end = std::max(end, p.last_seen_s);
  for (const auto& x : t.xid_events) end = std::max(end, x.t_s);
  return end > 0 ? end : 1;
}

// A tick spacing that gives at most ~12 labels.
double tick_spacing(double span) {
  for (const double step : {0.5, 1.0, 2.0, 5.0, 10.0, 15.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1200.0, 3600.0}) {
    if (span / step <= 12) return step;
  }
  return 7200;
}

std::string gpu_label(const model::TelemetryGpu& gpu) {
  return gpu.cuda_ordinal ? fmt::format("GPU{}", *gpu.cuda_ordinal) : fmt::format("NVML GPU {}", gpu.nvml_index);
}

std::vector<const model::TelemetryProcess*> others_on(const model::Telemetry& t, int nvml_index) {
  std::vector<const model::TelemetryProcess*> out;
  for (const auto& p : t.processes) {
    if (!p.own() && p.nvml_index == nvml_index) out.push_back(&p);
  }
  return out;
}

// Lines under the chart: what could not be sampled.
std::vector<std::string> notes_of(const model::Telemetry& t) {
  std::vector<std::string> notes;
  if (!t.unavailable.empty()) notes.push_back("Not sampled: " + t.unavailable);
  if (!t.xid_unavailable.empty()) notes.push_back("Xid events not watched: " + t.xid_unavailable);
  for (const auto& gpu : t.gpus) {
    if (gpu.unavailable.empty()) continue;
    std::string names;
    for (const auto& [quantity, reason] : gpu.unavailable) names += (names.empty() ? "" : ", ") + quantity;
    notes.push_back(fmt::format("{}: not readable here: {}", gpu_label(gpu), names));
  }
  return notes;
}

std::string seconds_label(double t) { return svg_number(t) + " s"; }

void draw_axis(SvgCanvas& canvas, const Frame& frame, double y) {
  canvas.line(frame.x0, y, frame.x1, y, "#444");
  const double spacing = tick_spacing(frame.t_end);
  for (double t = 0; t <= frame.t_end + 1e-9; t += spacing) {
    canvas.line(frame.x(t), y, frame.x(t), y + 4, "#444");
    canvas.text(frame.x(t), y + 16, seconds_label(t), 10, "middle", "#444");
  }
}

void draw_steps(SvgCanvas& canvas, const Frame& frame, const model::Telemetry& t, double y) {
  canvas.text(8, y + kStepBand / 2 + 4, "steps", 11, "start", "#222", "bold");
  for (std::size_t i = 0; i < t.steps.size(); ++i) {
    const auto& step = t.steps[i];
    const double end = step.end_s.value_or(frame.t_end);
    const double x = frame.x(step.start_s), w = std::max(1.0, frame.x(end) - x);
    canvas.open("g", {});
    canvas.rect(x, y, w, kStepBand, kStepFills[i % 2], "#9aa7b4");
    canvas.element("title", {}, fmt::format("{}: {} to {}{}", step.name, seconds_label(step.start_s),
                                            seconds_label(end), step.end_s ? "" : " (still running)"));
    if (static_cast<double>(step.name.size()) * 6.2 + 6 < w) canvas.text(x + 3, y + kStepBand / 2 + 4, step.name, 10);
    canvas.close("g");
  }
}

// One quantity as line segments (a reading that is missing breaks the line; a merged sample covers its span).
void draw_series(SvgCanvas& canvas, const Frame& frame, const std::vector<model::TelemetrySample>& samples,
                 const std::function<std::optional<double>(const model::TelemetrySample&)>& share, double top,
                 const std::string& color) {
  std::string points;
  const auto flush = [&] {
    if (!points.empty()) {
      canvas.element("polyline", {{"points", points}, {"fill", "none"}, {"stroke", color}, {"stroke-width", "1.5"}});
    }
    points.clear();
  };
  for (const auto& s : samples) {
    const auto value = share(s);
    if (!value) {
      flush();
      continue;
    }
    const double y = top + kPlot * (1 - std::clamp(*value, 0.0, 1.0));
    for (const double t : {s.t_s, s.t_s + s.span_s}) {
      points += (points.empty() ? "" : " ") + svg_number(frame.x(t)) + "," + svg_number(y);
      if (s.span_s == 0) break;
    }
  }
  flush();
}

std::optional<int> max_of(const std::vector<model::TelemetrySample>& samples,
                          const std::function<std::optional<int>(const model::TelemetrySample&)>& get) {
  std::optional<int> best;
  for (const auto& s : samples) {
    if (const auto v = get(s)) best = std::max(best.value_or(*v), *v);
  }
  return best;
}

// A clock as a share of its highest reading over the run (so its drops show against the same panel).
void draw_clock(SvgCanvas& canvas, const Frame& frame, const model::TelemetryGpu& gpu,
                const std::function<std::optional<int>(const model::TelemetrySample&)>& clock, double top,
                const std::string& color, const std::string& name, double legend_x) {
  const auto highest = max_of(gpu.samples, clock);
  if (!highest || *highest <= 0) return;
  draw_series(canvas, frame, gpu.samples,
              [&](const model::TelemetrySample& s) -> std::optional<double> {
                const auto mhz = clock(s);
                return mhz ? std::optional<double>(static_cast<double>(*mhz) / *highest) : std::nullopt;
              },
              top, color);
  canvas.text(legend_x, top - 3, fmt::format("{} (top {} MHz)", name, *highest), 9, "start", color);
}

double draw_gpu(SvgCanvas& canvas, const Frame& frame, const model::Telemetry& t, const model::TelemetryGpu& gpu,
                double top) {
  canvas.text(8, top + 14, gpu_label(gpu), 11, "start", "#222", "bold");
  if (!gpu.pci_bdf.empty()) canvas.text(8, top + 27, gpu.pci_bdf, 9, "start", "#666");
  canvas.rect(frame.x0, top, frame.x1 - frame.x0, kPlot, "#ffffff", "#cccccc");
  canvas.line(frame.x0, top + kPlot / 2, frame.x1, top + kPlot / 2, "#eeeeee");
  canvas.text(frame.x0 - 3, top + 8, "100%", 8, "end", "#888");
  canvas.text(frame.x0 - 3, top + kPlot, "0", 8, "end", "#888");
  for (const auto& step : t.steps) {  // the step bands continue faintly through every panel
    const double end = step.end_s.value_or(frame.t_end);
    canvas.line(frame.x(step.start_s), top, frame.x(step.start_s), top + kPlot, "#d0d7de", 1, "2,2");
    canvas.line(frame.x(end), top, frame.x(end), top + kPlot, "#d0d7de", 1, "2,2");
  }
  draw_series(canvas, frame, gpu.samples,
              [](const model::TelemetrySample& s) -> std::optional<double> {
                return s.gpu_util_percent ? std::optional<double>(*s.gpu_util_percent / 100.0) : std::nullopt;
              },
              top, series_color(0));
  canvas.text(frame.x0, top - 3, "utilization", 9, "start", series_color(0));
  draw_clock(canvas, frame, gpu, [](const model::TelemetrySample& s) { return s.sm_clock_mhz; }, top, series_color(1),
             "SM clock", frame.x0 + 70);
  draw_clock(canvas, frame, gpu, [](const model::TelemetrySample& s) { return s.memory_clock_mhz; }, top,
             series_color(2), "memory clock", frame.x0 + 230);
  for (const auto& x : t.xid_events) {
    if (x.nvml_index != gpu.nvml_index) continue;
    canvas.line(frame.x(x.t_s), top, frame.x(x.t_s), top + kPlot, kXid, 2);
    canvas.text(frame.x(x.t_s) + 3, top + 10, fmt::format("Xid {}", x.xid), 9, "start", kXid, "bold");
  }
  double y = top + kPlot + 4;
  for (const auto* p : others_on(t, gpu.nvml_index)) {
    const double x = frame.x(p->first_seen_s), w = std::max(2.0, frame.x(p->last_seen_s) - x);
    canvas.open("g", {});
    if (p->visible) {
      canvas.rect(x, y + 2, w, kProcessRow - 4, kForeign);
    } else {
      canvas.element("rect", {{"x", svg_number(x)}, {"y", svg_number(y + 2)}, {"width", svg_number(w)},
                              {"height", svg_number(kProcessRow - 4)}, {"fill", "none"}, {"stroke", kForeign},
                              {"stroke-dasharray", "3,2"}});
    }
    const std::string name = fmt::format("pid {}{}{}", p->pid, p->name.empty() ? "" : " " + p->name,
                                         p->visible ? "" : " (other PID namespace)");
    canvas.element("title", {}, fmt::format("{}: not the doctor's; listed from {} to {}", name,
                                            seconds_label(p->first_seen_s), seconds_label(p->last_seen_s)));
    const bool fits_after = x + w + 4 + static_cast<double>(name.size()) * 5.6 < frame.x1;
    canvas.text(fits_after ? x + w + 4 : x - 4, y + kProcessRow - 3, name, 9, fits_after ? "start" : "end", kForeign);
    canvas.close("g");
    y += kProcessRow;
  }
  return y - top;
}

}  // namespace

std::string render_timeline(const model::Telemetry& t, const TimelineChart& chart) {
  const bool any_samples = std::any_of(t.gpus.begin(), t.gpus.end(),
                                       [](const model::TelemetryGpu& g) { return !g.samples.empty(); });
  if (!any_samples && t.steps.empty()) return "";
  const std::vector<std::string> notes = notes_of(t);
  double height = kTitle + kStepBand + kPanelGap;
  for (const auto& gpu : t.gpus) {
    height += kPlot + 4 + kProcessRow * static_cast<double>(others_on(t, gpu.nvml_index).size()) + kPanelGap;
  }
  height += kAxis + kNoteLine * static_cast<double>(notes.size()) + 6;

  SvgCanvas canvas(chart.width, height, chart.id, chart.title);
  canvas.rect(0, 0, chart.width, height, "#ffffff");
  canvas.text(8, 19, chart.title, 13, "start", "#222", "bold");
  const Frame frame{kLeft, chart.width - kRight, run_end(t)};
  double y = kTitle;
  draw_steps(canvas, frame, t, y);
  y += kStepBand + kPanelGap;
  for (const auto& gpu : t.gpus) y += draw_gpu(canvas, frame, t, gpu, y) + kPanelGap;
  draw_axis(canvas, frame, y - kPanelGap + 4);
  y += kAxis - kPanelGap + 8;
  for (const auto& note : notes) {
    canvas.text(8, y, clip(note, 160), 9, "start", "#555");
    y += kNoteLine;
  }
  return canvas.finish();
}

}  // namespace linkscope::report
