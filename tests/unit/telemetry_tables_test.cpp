// The report's "During the run" section (report/telemetry_tables and the HTML/Markdown renderers): each step with the
// error counters that grew in it, every process NVML listed with whose it is, Xid events with their meaning, what
// could not be watched; the timeline is written beside report.md and inlined in report.html; a run without
// telemetry has no such section.
#include <gtest/gtest.h>

#include <filesystem>

#include "model/run.hpp"
#include "report/html_report.hpp"
#include "report/markdown_report.hpp"
#include "report/report_render.hpp"
#include "report/telemetry_tables.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace linkscope::report {
namespace {

model::Telemetry watched_run() {
  model::Telemetry t;
  t.duration_s = 12.5;
  t.passes = 125;
  t.cost.cpu_seconds = 0.04;
  t.xid_unavailable = "nvmlEventSetCreate: Not Supported";
  model::TelemetryGpu gpu;
  gpu.nvml_index = 1;
  gpu.cuda_ordinal = 0;
  gpu.unavailable = {{"power_w", "nvmlDeviceGetPowerUsage: Not Supported"}};
  for (int i = 0; i < 5; ++i) {
    model::TelemetrySample s;
    s.t_s = i * 2.5;
    s.gpu_util_percent = 90;
    s.sm_clock_mhz = 1980;
    gpu.samples.push_back(s);
  }
  t.gpus.push_back(gpu);

  model::TelemetryStep p2p;
  p2p.name = "p2p";
  p2p.start_s = 1.5;
  p2p.end_s = 6.0;
  model::TelemetryStepGpu counters;
  counters.nvml_index = 1;
  counters.before[model::GpuCounter::kPcieReplay] = 10;
  counters.after = counters.before;
  (*counters.after)[model::GpuCounter::kPcieReplay] = 13;
  model::LinkCounters link;
  link.link = 4;
  link[model::LinkCounter::kCrcFlit] = 0;
  counters.before.nvlinks.push_back(link);
  link[model::LinkCounter::kCrcFlit] = 12;
  counters.after->nvlinks.push_back(link);
  p2p.gpus.push_back(counters);
  model::TelemetryStep coll;
  coll.name = "coll all_reduce";
  coll.start_s = 6.0;  // interrupted: no end, no reading after
  coll.gpus.push_back({1, counters.before, std::nullopt});
  t.steps = {p2p, coll};

  model::TelemetryProcess own;
  own.pid = 2001;
  own.name = "linkscope";
  own.owner = "started by the doctor for p2p";
  own.nvml_index = 1;
  own.steps = {0};
  model::TelemetryProcess foreign;
  foreign.pid = 777;
  foreign.name = "python3";
  foreign.nvml_index = 1;
  foreign.visible = true;
  foreign.first_seen_s = 4.0;
  foreign.last_seen_s = 9.0;
  foreign.samples = 50;
  foreign.steps = {0, 1};
  foreign.samples_outside_steps = 2;
  t.processes = {own, foreign};
  t.xid_events.push_back({7.25, 1, 79, 1});
  return t;
}

TEST(TelemetryTables, StepsSayWhichCountersGrewAndWhichStepDidNotFinish) {
  const Table steps = telemetry_steps_table(watched_run());
  ASSERT_EQ(steps.rows.size(), 2u);
  EXPECT_EQ(steps.rows[0][0].text, "p2p");
  EXPECT_EQ(steps.rows[0][2].text, "4.5 s");
  EXPECT_EQ(steps.rows[0][3].text, "GPU0 (NVML 1): pcie_replay +3, nvlink_crc_flit link 4 +12");
  EXPECT_EQ(steps.rows[1][2].text, "did not finish");
  EXPECT_EQ(steps.rows[1][3].text, "none (the step did not finish)");
}

TEST(TelemetryTables, ProcessesSayWhoseTheyAreAndWhenTheyRan) {
  const Table processes = telemetry_processes_table(watched_run());
  ASSERT_EQ(processes.rows.size(), 2u);
  EXPECT_EQ(processes.rows[0][3].text, "started by the doctor for p2p");
  EXPECT_EQ(processes.rows[1][0].text, "777");
  EXPECT_EQ(processes.rows[1][3].text, "not the doctor's");
  EXPECT_EQ(processes.rows[1][3].css_class, "sev-warning");
  EXPECT_EQ(processes.rows[1][4].text, "4.0 s to 9.0 s");
  EXPECT_EQ(processes.rows[1][5].text, "p2p, coll all_reduce, 2 pass(es) between steps");
}

TEST(TelemetryTables, XidEventsCarryTheirMeaningAndSummarySaysWhatWasNotWatched) {
  const model::Telemetry t = watched_run();
  const Table xid = telemetry_xid_table(t);
  ASSERT_EQ(xid.rows.size(), 1u);
  EXPECT_EQ(xid.rows[0][2].text, "79");
  EXPECT_NE(xid.rows[0][3].text.find("fallen off the bus"), std::string::npos) << xid.rows[0][3].text;
  EXPECT_EQ(xid.rows[0][4].text, "coll all_reduce");
  const std::string summary = telemetry_summary(t);
  EXPECT_NE(summary.find("Sampled 1 GPU(s) 125 time(s)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("Xid events were not watched: nvmlEventSetCreate: Not Supported"), std::string::npos) << summary;
  EXPECT_NE(summary.find("GPU0 (NVML 1) power_w: nvmlDeviceGetPowerUsage: Not Supported"), std::string::npos) << summary;
  model::Telemetry blind;
  blind.unavailable = "NVML could not be loaded";
  EXPECT_EQ(telemetry_summary(blind), "Nothing could be watched during the run: NVML could not be loaded.");
}

TEST(TelemetryTables, TheReportHasADuringTheRunSectionOnlyWithTelemetry) {
  model::Run run = model::make_run("doctor", {"linkscope", "doctor"});
  const std::string plain_md = render_markdown(run);
  EXPECT_EQ(plain_md.find("## During the run"), std::string::npos);
  EXPECT_EQ(render_html(run).find("id=\"telemetry\""), std::string::npos);

  run.measurements.telemetry = watched_run();
  const std::string md = render_markdown(run);
  EXPECT_NE(md.find("## During the run"), std::string::npos);
  EXPECT_NE(md.find("| 777 | python3 |"), std::string::npos) << md;
  const std::string html = render_html(run);
  EXPECT_NE(html.find("<section id=\"telemetry\">"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);

  test::TempDir dir;
  write_report_directory(dir.path() + "/r", run);
  EXPECT_TRUE(std::filesystem::exists(dir.path() + "/r/timeline.svg"));
  EXPECT_NE(test::read_text(dir.path() + "/r/report.md").find("](timeline.svg)"), std::string::npos);
}

}  // namespace
}  // namespace linkscope::report
