// DCGM's nccl_tests plugin and Azure NHC's check_nccl_allreduce (tests/support/nccl_tests_health_checks.hpp) read
// nccl-tests' text; they must reach the same verdict on linkscope's personality output as on nccl-tests' own, also
// when -I, -S or -M add columns and lines, when results are wrong and when NCCL_TESTS_MIN_BW is not met.
#include <gtest/gtest.h>

#include <string>

#include "golden/nccl_tests_fixture.hpp"
#include "report/nccl_tests_text.hpp"
#include "support/nccl_tests_health_checks.hpp"

namespace linkscope {
namespace {

using test::dcgm_nccl_tests_verdict;
using test::nhc_nccl_allreduce_verdict;

const char* const kFixtures[] = {"ncclt-all_reduce.txt", "ncclt-all_gather.txt", "ncclt-reduce_scatter.txt",
                                 "ncclt-sendrecv.txt",   "ncclt-alltoall.txt",   "ncclt-broadcast.txt"};

// linkscope's rendering of the run, with nccl-tests' columns plus -I's and -S's.
std::string linkscope_with_extra_columns(const test::ParsedFixture& f) {
  report::NcclTestsPreamble p = f.preamble;
  p.per_iteration = true;
  std::string out = report::render_nccl_tests_preamble(p);
  out += report::render_nccl_tests_header({false, true, true});
  for (auto row : f.rows) {
    model::IterationTimes t;
    t.min_us = row.out_of_place.time_us * 0.9;
    t.max_us = row.out_of_place.time_us * 1.2;
    t.p99_us = t.max_us;
    t.cv_pct = 3;
    row.out_of_place.per_iteration = t;
    row.in_place.per_iteration = t;
    row.timestamp = "2026-12-02 06:20:00";
    out += report::render_nccl_tests_row(row);
  }
  report::NcclTestsFooter footer = f.footer;
  footer.memory = report::NcclTestsFooter::Memory{1 << 30, 0, 1 << 20};
  out += report::render_nccl_tests_footer(footer);
  return out;
}

TEST(NcclTestsHealthChecks, SameVerdictsOnNcclTestsAndLinkscopeOutput) {
  for (const char* name : kFixtures) {
    const test::ParsedFixture f = test::parse_fixture(name);
    ASSERT_FALSE(f.rows.empty()) << name;
    const std::string nccl_tests = f.nccl_tests_text;
    for (const std::string& linkscope : {test::render(f), linkscope_with_extra_columns(f)}) {
      EXPECT_EQ(dcgm_nccl_tests_verdict(nccl_tests, 0).pass, dcgm_nccl_tests_verdict(linkscope, 0).pass) << name;
      EXPECT_TRUE(dcgm_nccl_tests_verdict(linkscope, 0).pass) << name << dcgm_nccl_tests_verdict(linkscope, 0).reason;
      // The threshold at the run's own average passes, just above it fails, on both outputs.
      const double average = f.footer.average_busbw_gbps;
      EXPECT_TRUE(nhc_nccl_allreduce_verdict(nccl_tests, 0, average).pass) << name;
      EXPECT_TRUE(nhc_nccl_allreduce_verdict(linkscope, 0, average).pass) << name;
      EXPECT_FALSE(nhc_nccl_allreduce_verdict(nccl_tests, 0, average * 1.001).pass) << name;
      EXPECT_FALSE(nhc_nccl_allreduce_verdict(linkscope, 0, average * 1.001).pass) << name;
      EXPECT_EQ(test::nhc_average_bus_bandwidth(linkscope), test::nhc_average_bus_bandwidth(nccl_tests)) << name;
      // busbw at a size: the out-of-place column, wherever -I puts the in-place one.
      const auto& last = f.rows.back();
      EXPECT_EQ(test::busbw_at_size(linkscope, last.size_bytes), test::busbw_at_size(nccl_tests, last.size_bytes));
      EXPECT_NEAR(*test::busbw_at_size(linkscope, last.size_bytes), last.out_of_place.busbw_gbps, 0.005);
    }
  }
}

TEST(NcclTestsHealthChecks, OneGpuCaptureGetsTheSameVerdicts) {
  // One H200 (bench/results/2026-12-02-h200x1/run2): all_reduce's busbw is 2(n-1)/n x algbw = 0 with one rank, so the
  // average is 0 and any positive NHC threshold fails, on nccl-tests' text and on linkscope's alike.
  const test::ParsedFixture f = test::parse_fixture("ncclt-all_reduce.txt", "h200x1");
  ASSERT_EQ(f.rows.size(), 14u);
  const std::string nccl_tests = f.nccl_tests_text;
  for (const std::string& linkscope : {test::render(f), linkscope_with_extra_columns(f)}) {
    EXPECT_TRUE(dcgm_nccl_tests_verdict(nccl_tests, 0).pass);
    EXPECT_TRUE(dcgm_nccl_tests_verdict(linkscope, 0).pass) << dcgm_nccl_tests_verdict(linkscope, 0).reason;
    EXPECT_EQ(test::nhc_average_bus_bandwidth(linkscope), 0.0);
    EXPECT_EQ(test::nhc_average_bus_bandwidth(nccl_tests), 0.0);
    EXPECT_TRUE(nhc_nccl_allreduce_verdict(nccl_tests, 0, 0).pass);
    EXPECT_TRUE(nhc_nccl_allreduce_verdict(linkscope, 0, 0).pass);
    EXPECT_FALSE(nhc_nccl_allreduce_verdict(nccl_tests, 0, 1).pass);
    EXPECT_FALSE(nhc_nccl_allreduce_verdict(linkscope, 0, 1).pass);
    for (const auto& row : f.rows) {
      EXPECT_EQ(test::busbw_at_size(linkscope, row.size_bytes), test::busbw_at_size(nccl_tests, row.size_bytes))
          << row.size_bytes;
    }
    // A failing exit code fails both checks whatever the text says.
    EXPECT_FALSE(dcgm_nccl_tests_verdict(linkscope, 3).pass);
    EXPECT_FALSE(nhc_nccl_allreduce_verdict(linkscope, 3, 0).pass);
  }
}

TEST(NcclTestsHealthChecks, WrongResultsFailBothChecks) {
  test::ParsedFixture f = test::parse_fixture("ncclt-all_reduce.txt");
  f.rows[3].out_of_place.wrong = 12;
  f.footer.out_of_bounds = 1;
  const std::string out = test::render(f);
  EXPECT_FALSE(dcgm_nccl_tests_verdict(out, 5).pass);
  EXPECT_NE(dcgm_nccl_tests_verdict(out, 0).reason.find("Out of bounds values : 1 FAILED"), std::string::npos);
  EXPECT_FALSE(nhc_nccl_allreduce_verdict(out, 0, 0).pass);
}

TEST(NcclTestsHealthChecks, MinimumBandwidthFailureIsSeenByBoth) {
  test::ParsedFixture f = test::parse_fixture("ncclt-all_reduce.txt");
  f.footer.minimum_busbw = f.footer.average_busbw_gbps * 2;  // NCCL_TESTS_MIN_BW far above the run
  const std::string out = test::render(f);
  EXPECT_NE(out.find("FAILED"), std::string::npos);
  EXPECT_FALSE(dcgm_nccl_tests_verdict(out, 6).pass);
  EXPECT_FALSE(nhc_nccl_allreduce_verdict(out, 0, 0).pass);
  f.footer.minimum_busbw = f.footer.average_busbw_gbps;
  EXPECT_TRUE(dcgm_nccl_tests_verdict(test::render(f), 0).pass);
}

TEST(NcclTestsHealthChecks, MissingFooterOrExitCodeFails) {
  const test::ParsedFixture f = test::parse_fixture("ncclt-all_reduce.txt");
  std::string cut = report::render_nccl_tests_preamble(f.preamble) + report::render_nccl_tests_header({});
  for (const auto& row : f.rows) cut += report::render_nccl_tests_row(row);
  EXPECT_EQ(dcgm_nccl_tests_verdict(cut, 0).reason, "Output missing expected result lines");
  EXPECT_FALSE(nhc_nccl_allreduce_verdict(cut, 0, 0).pass);
  EXPECT_FALSE(dcgm_nccl_tests_verdict(test::render(f), 3).pass);
  EXPECT_FALSE(nhc_nccl_allreduce_verdict(test::render(f), 3, 0).pass);
}

}  // namespace
}  // namespace linkscope
