// The telemetry timeline (report/svg_timeline): well-formed SVG with one step band per step, a utilization and two
// clock lines per GPU, the processes that were not the doctor's as bars (names escaped), Xid marks, what could not be
// read listed below; nothing for a run without telemetry; the same bytes for the same telemetry.
#include <gtest/gtest.h>

#include <pugixml.hpp>

#include "report/svg_timeline.hpp"

namespace linkscope::report {
namespace {

model::TelemetrySample sample(double t, std::optional<int> step, int util, int sm) {
  model::TelemetrySample s;
  s.t_s = t;
  s.step = step;
  s.gpu_util_percent = util;
  s.sm_clock_mhz = sm;
  s.memory_clock_mhz = 3201;
  return s;
}

model::Telemetry two_gpu_run() {
  model::Telemetry t;
  t.duration_s = 10;
  for (int g = 0; g < 2; ++g) {
    model::TelemetryGpu gpu;
    gpu.nvml_index = g;
    gpu.cuda_ordinal = g;
    gpu.pci_bdf = "0000:0" + std::to_string(6 + g) + ":00.0";
    for (int i = 0; i <= 20; ++i) {
      const double time = i * 0.5;
      gpu.samples.push_back(sample(time, time >= 1.5 && time < 9 ? std::optional<int>(time < 5 ? 0 : 1) : std::nullopt,
                                   time >= 1.5 && time < 9 ? 95 : 0, time >= 1.5 && time < 9 ? 1980 : 345));
    }
    gpu.samples[6].sm_clock_mhz.reset();  // a missing reading breaks the line
    t.gpus.push_back(gpu);
  }
  t.gpus[1].unavailable = {{"power_w", "nvmlDeviceGetPowerUsage: Not Supported"}};
  t.xid_unavailable = "";
  model::TelemetryStep p2p;
  p2p.name = "p2p";
  p2p.start_s = 1.5;
  p2p.end_s = 5;
  model::TelemetryStep coll = p2p;
  coll.name = "coll all_reduce";
  coll.start_s = 5;
  coll.end_s = 9;
  t.steps = {p2p, coll};
  model::TelemetryProcess own;
  own.pid = 2001;
  own.name = "linkscope";
  own.owner = "started by the doctor for p2p";
  own.first_seen_s = 1.6;
  own.last_seen_s = 4.9;
  model::TelemetryProcess foreign;
  foreign.pid = 777;
  foreign.name = "train<&>";
  foreign.nvml_index = 1;
  foreign.visible = true;
  foreign.first_seen_s = 6;
  foreign.last_seen_s = 9.5;
  t.processes = {own, foreign};
  t.xid_events.push_back({7.0, 1, 79, 1});
  return t;
}

int count(const pugi::xml_node& root, const char* xpath) {
  return static_cast<int>(root.select_nodes(xpath).size());
}

TEST(SvgTimeline, DrawsStepsGpusProcessesAndXidAsWellFormedSvg) {
  const std::string svg = render_timeline(two_gpu_run());
  pugi::xml_document document;
  const pugi::xml_parse_result parsed = document.load_string(svg.c_str());
  ASSERT_TRUE(parsed) << parsed.description() << "\n" << svg;
  const pugi::xml_node root = document.child("svg");
  ASSERT_TRUE(root);
  EXPECT_EQ(count(root, "//g/title[starts-with(., 'p2p: 1.5 s to 5 s')]"), 1) << svg;
  EXPECT_EQ(count(root, "//g/title[starts-with(., 'coll all_reduce: 5 s to 9 s')]"), 1);
  EXPECT_EQ(count(root, "//text[. = 'GPU0']"), 1);
  EXPECT_EQ(count(root, "//text[. = 'GPU1']"), 1);
  // Per GPU: utilization in one piece, the SM clock in two (a missing reading), the memory clock in one.
  EXPECT_EQ(count(root, "//polyline"), 2 * 4);
  EXPECT_EQ(count(root, "//text[. = 'SM clock (top 1980 MHz)']"), 2);
  EXPECT_EQ(count(root, "//text[. = 'pid 777 train<&>']"), 1) << "the foreign process, its name escaped";
  EXPECT_EQ(svg.find("pid 2001"), std::string::npos) << "the doctor's own child is not drawn";
  EXPECT_EQ(count(root, "//text[. = 'Xid 79']"), 1);
  EXPECT_EQ(count(root, "//text[. = 'GPU1: not readable here: power_w']"), 1);
  EXPECT_NE(svg.find("train&lt;&amp;&gt;"), std::string::npos);
  EXPECT_EQ(svg, render_timeline(two_gpu_run())) << "the same telemetry draws the same bytes";
}

TEST(SvgTimeline, SaysWhatWasNotWatchedAndDrawsNothingWithoutTelemetry) {
  EXPECT_EQ(render_timeline(model::Telemetry{}), "");
  model::Telemetry no_nvml;
  no_nvml.unavailable = "NVML could not be opened for sampling: dlopen(libnvidia-ml.so.1) failed";
  no_nvml.xid_unavailable = "nvmlEventSetCreate is not in this NVML (driver too old)";
  no_nvml.duration_s = 1;  // a checkpoint taken 1 s in
  model::TelemetryStep step;
  step.name = "p2p";
  step.start_s = 0.5;  // still running: drawn to the end
  no_nvml.steps.push_back(step);
  const std::string svg = render_timeline(no_nvml);
  pugi::xml_document document;
  ASSERT_TRUE(document.load_string(svg.c_str())) << svg;
  const pugi::xml_node root = document.child("svg");
  EXPECT_EQ(count(root, "//text[starts-with(., 'Not sampled: NVML could not be opened')]"), 1) << svg;
  EXPECT_EQ(count(root, "//text[starts-with(., 'Xid events not watched: nvmlEventSetCreate')]"), 1) << svg;
  EXPECT_EQ(count(root, "//g/title[. = 'p2p: 0.5 s to 1 s (still running)']"), 1) << svg;
  EXPECT_EQ(count(root, "//polyline"), 0);
}

}  // namespace
}  // namespace linkscope::report
