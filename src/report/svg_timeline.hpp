#pragma once
#include <string>

#include "model/telemetry.hpp"

// The doctor's run as a timeline (measurements.telemetry): a band of the measuring steps on top, then per GPU its
// utilization and its SM and memory clocks over time, the processes that were not the doctor's as bars under it,
// and Xid events as marks; what could not be sampled is listed below. One self-contained SVG (report/svg_canvas).
namespace linkscope::report {

struct TimelineChart {
  std::string id = "telemetry";  // unique within a page
  std::string title = "During the run: steps, utilization, clocks and other processes";
  double width = 960;
};

// Empty string when the telemetry has neither samples nor steps.
std::string render_timeline(const model::Telemetry& telemetry, const TimelineChart& chart = {});

}  // namespace linkscope::report
