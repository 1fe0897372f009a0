// Golden tests for what nccl-tests 2.19.6's flags add to its output: -z/-I/-p preamble lines, -I's i_* columns,
// -S's timestamp column, -M's memory line, and the -J document. The expected files were written from nccl-tests'
// printf formats and JSON writer rules (not by this renderer), so a difference is the renderer's.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <set>
#include <string>

#include "report/nccl_tests_json.hpp"
#include "report/nccl_tests_text.hpp"
#include "support/run_command.hpp"

namespace linkscope {
namespace {

using report::NcclTestsCell;
using report::NcclTestsRow;

std::string expected(const std::string& name) {
  const std::string text = test::read_text(std::string(LINKSCOPE_SOURCE_DIR) + "/tests/golden/expected/nccl-tests/" + name);
  EXPECT_FALSE(text.empty()) << name;
  return text;
}

model::IterationTimes summary(double min, double max, double p99, double cv) {
  model::IterationTimes t;
  t.min_us = min;
  t.max_us = max;
  t.p99_us = p99;
  t.cv_pct = cv;
  return t;
}

report::NcclTestsPreamble preamble() {
  report::NcclTestsPreamble p;
  p.nccl_headers_code = 22809;
  p.nccl_library_code = 22803;
  p.program = "all_reduce_perf";
  p.min_bytes = 8;
  p.max_bytes = 1073741824;
  p.step = 4;
  p.step_is_factor = true;
  p.warmup_iters = 1;
  p.iters = 20;
  p.unalign = 2;
  p.blocking = 3;
  p.per_iteration = true;
  p.per_iteration_skip = 2;
  p.parallel_init = true;
  report::NcclTestsDevice d;
  d.pid = 4242;
  d.host = "gpu-host";
  d.pci_bus = 0x1b;
  d.name = "NVIDIA H200";
  p.devices.push_back(d);
  return p;
}

NcclTestsCell cell(double time, double bw, std::optional<double> wrong, model::IterationTimes per_iteration) {
  NcclTestsCell c;
  c.time_us = time;
  c.algbw_gbps = bw;
  c.busbw_gbps = bw;
  c.wrong = wrong;
  c.per_iteration = per_iteration;
  return c;
}

NcclTestsRow row(std::uint64_t size, std::uint64_t count, NcclTestsCell out, NcclTestsCell in, const char* stamp) {
  NcclTestsRow r;
  r.size_bytes = size;
  r.count = count;
  r.type = "float";
  r.redop = "sum";
  r.root = -1;
  r.out_of_place = out;
  r.in_place = in;
  r.timestamp = stamp;
  return r;
}

TEST(NcclTestsFlagsGolden, PerIterationColumnsTimestampsAndMemoryLine) {
  std::string out = report::render_nccl_tests_preamble(preamble());
  out += report::render_nccl_tests_header({false, true, true});
  out += report::render_nccl_tests_row(row(8, 2, cell(6.86, 0, 0.0, summary(5.9, 12.75, 12.75, 21.33)),
                                           cell(7.02, 0, 0.0, summary(6.1, 9.5, 9.5, 8.25)), "2026-12-02 06:20:00"));
  out += report::render_nccl_tests_row(row(1073741824, 268435456, cell(3289.63, 326.4, 0.0, summary(3280.5, 3301.25, 3301.25, 0.21)),
                                           cell(3283.18, 327.04, std::nullopt, summary(3279.0, 3290.5, 3290.5, 0.12)),
                                           "2026-12-02 06:20:01"));
  report::NcclTestsFooter footer;
  footer.average_busbw_gbps = 163.46;
  footer.minimum_busbw = 100;
  footer.program = "all_reduce_perf";
  footer.memory = report::NcclTestsFooter::Memory{1610612736, 0, 12582912};
  out += report::render_nccl_tests_footer(footer);
  EXPECT_EQ(out, expected("per-iteration-timestamps.txt"));
}

TEST(NcclTestsFlagsGolden, PlainHeaderKeepsItsTrailingSpaceWithoutTimestamps) {
  // Without -S nccl-tests still prints "%*s" with width 0: the lines end in one space.
  const std::string header = report::render_nccl_tests_header({});
  EXPECT_NE(header.find("#wrong \n"), std::string::npos);
  EXPECT_EQ(header.find("timestamp"), std::string::npos);
  EXPECT_NE(report::render_nccl_tests_header({true, false, false}).find("cputime"), std::string::npos);
}

TEST(NcclTestsFlagsGolden, MemoryAmountsInNcclTestsUnits) {
  EXPECT_EQ(report::nccl_tests_memory(0), "0.00 B");
  EXPECT_EQ(report::nccl_tests_memory(512), "512 B");
  EXPECT_EQ(report::nccl_tests_memory(1536), "1.50 KB");
  EXPECT_EQ(report::nccl_tests_memory(50 * 1024 * 1024), "50.0 MB");
  EXPECT_EQ(report::nccl_tests_memory(3LL << 30), "3.00 GB");
}

report::NcclTestsJsonDocument json_document() {
  report::NcclTestsJsonDocument d;
  d.start_time = "2026-12-02 06:20:00";
  d.end_time = "2026-12-02 06:20:02";
  d.args = {"/opt/linkscope/bin/all_reduce_perf", "-J", "out.json"};
  d.env = {"NCCL_NVLS_ENABLE=0", "TAB=a\tb \"q\""};
  d.preamble = preamble();
  d.preamble.iters = 4;
  d.preamble.per_iteration_skip = 1;
  d.preamble.parallel_init = false;
  model::IterationTimes t;
  t.skipped = 1;
  t.times_us = {12.5, 6.0, 7.0, 8.0};
  t.min_us = 6;
  t.max_us = 8;
  t.avg_us = 7;
  t.p50_us = 7;
  t.p95_us = 8;
  t.p99_us = 8;
  t.stdev_us = 0.816497;
  t.cv_pct = 11.664251;
  model::IterationTimes two_processes = t;
  two_processes.per_process_us = {{12.5, 6.0, 7.0, 8.0}, {11.0, 5.5, 6.5, 7.5}};
  NcclTestsRow r = row(8, 2, cell(6.86, 0, 0.0, two_processes), cell(7.02, 0, std::nullopt, t), "ignored");
  d.rows = {r};
  d.footer.program = "all_reduce_perf";
  d.errors = {""};
  return d;
}

TEST(NcclTestsFlagsGolden, JsonDocumentByteForByte) {
  EXPECT_EQ(report::render_nccl_tests_json(json_document()), expected("per-iteration.json"));
}

TEST(NcclTestsFlagsGolden, JsonHasEveryFieldAnalyzePerfJsonReads) {
  const auto j = nlohmann::json::parse(report::render_nccl_tests_json(json_document()));
  EXPECT_EQ(j.at("version"), report::kNcclTestsJsonVersion);
  const auto& config = j.at("config");
  EXPECT_EQ(config.at("iterations"), 4);
  EXPECT_EQ(config.at("aggregated_iterations"), 1);
  EXPECT_EQ(config.at("per_iter_skip"), 1);
  EXPECT_EQ(config.at("devices").at(0).at("hostname"), "gpu-host");
  const auto& result = j.at("results").at(0);
  EXPECT_EQ(result.at("size"), 8);
  for (const char* placement : {"out_of_place_per_iter", "in_place_per_iter"}) {
    const auto& per = result.at(placement);
    for (const char* key : {"avg_us", "min_us", "max_us", "p99_us", "cv_pct", "times_us"}) {
      EXPECT_TRUE(per.contains(key)) << placement << " lacks " << key;
    }
    EXPECT_EQ(per.at("times_us").size(), 4u);
  }
  // Per-process rows only where there are several processes, as nccl-tests writes them.
  EXPECT_EQ(result.at("out_of_place_per_iter").at("per_process_max_times_us").size(), 2u);
  EXPECT_FALSE(result.at("in_place_per_iter").contains("per_process_max_times_us"));
  EXPECT_TRUE(result.at("in_place").at("nwrong").is_null());
  EXPECT_EQ(j.at("average_bus_bandwidth").at("okay"), "unchecked");
}

TEST(NcclTestsFlagsGolden, JsonThresholdAndCpuTime) {
  report::NcclTestsJsonDocument d = json_document();
  d.cputime = true;
  d.footer.average_busbw_gbps = 80;
  d.footer.minimum_busbw = 100;  // FAILED below 90% of it, as the text footer
  d.footer.out_of_bounds = 1;
  const auto j = nlohmann::json::parse(report::render_nccl_tests_json(d));
  EXPECT_TRUE(j.at("results").at(0).at("out_of_place").contains("cpu_time"));
  EXPECT_FALSE(j.at("results").at(0).at("out_of_place").contains("time"));
  EXPECT_EQ(j.at("average_bus_bandwidth").at("okay"), "false");
  EXPECT_EQ(j.at("out_of_bounds").at("okay"), "false");
  d.footer.average_busbw_gbps = 95;
  EXPECT_EQ(nlohmann::json::parse(report::render_nccl_tests_json(d)).at("average_bus_bandwidth").at("okay"), "true");
}

TEST(NcclTestsFlagsGolden, JsonPathNeverOverwrites) {
  std::set<std::string> existing{"out.json", "out.json.0"};
  const auto exists = [&](const std::string& p) { return existing.count(p) > 0; };
  EXPECT_EQ(report::nccl_tests_json_path("out.json", exists), "out.json.1");
  EXPECT_EQ(report::nccl_tests_json_path("new.json", exists), "new.json");
}

}  // namespace
}  // namespace linkscope
