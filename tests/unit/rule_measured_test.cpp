// bandwidth-below-expected, pair-asymmetric, gpu-slow, transport-mismatch: measured symptoms, judged only at
// bandwidth-bound sizes, beyond noise, and left to their cause's finding when one is known.
#include <set>

#include <gtest/gtest.h>

#include "diagnose/diagnose.hpp"
#include "diagnose/evidence.hpp"
#include "diagnose/measured_summary.hpp"
#include "diagnose_test_runs.hpp"

namespace linkscope::diagnose {
namespace {

using test::copy_point;
using test::kMiB;

std::set<std::string> ids(const test::RunJson& run) {
  std::set<std::string> out;
  for (const auto& f : find_problems(run)) out.insert(f.id);
  return out;
}

TEST(RuleMeasured, LatencyBoundSizesNeverCount) {
  test::RunJson run = test::nvswitch_run(2);
  // 1 KiB copies at 0.05 GB/s and a 1 MiB all_reduce at 60 GB/s are latency, not slow links.
  test::add_copies(run, {copy_point(0, 1, "ce", 1024, 0.05), copy_point(1, 0, "ce", 1024, 0.08),
                         copy_point(0, 1, "sm_read", 512 * 1024, 2.0), copy_point(1, 0, "sm_read", 512 * 1024, 20.0)});
  run.measurements["collectives"] = {test::collective("all_reduce", 1 * kMiB, 59.5)};
  EXPECT_TRUE(ids(run).empty());
}

TEST(RuleMeasured, SlowCopyAtPlateauIsBelowExpected) {
  test::RunJson run = test::nvswitch_run(2);
  test::add_copies(run, {copy_point(0, 1, "ce", 512 * kMiB, 250.0), copy_point(1, 0, "ce", 512 * kMiB, 251.0)});
  const auto found = find_problems(run);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].id, "bandwidth-below-expected");
  EXPECT_EQ(found[0].gpus, (std::vector<int>{0, 1}));
  EXPECT_NE(found[0].evidence[0].find("52% of NVLink 18 x 26.562 GB/s = 478.1 GB/s"), std::string::npos)
      << found[0].evidence[0];
}

TEST(RuleMeasured, SlowBusbwIsBelowExpectedUnlessTheEnvironmentExplainsIt) {
  test::RunJson run = test::nvswitch_run(2);
  run.measurements["collectives"] = {test::collective("all_reduce", 1024 * kMiB, 150.0)};
  EXPECT_EQ(ids(run), std::set<std::string>{"bandwidth-below-expected"});
  run.measurements["collectives"] = {test::collective("all_reduce", 1024 * kMiB, 27.4, 2, {{"NCCL_P2P_DISABLE", "1"}})};
  EXPECT_TRUE(ids(run).empty()) << "a what-if run with P2P taken away is expected to be slow";
  run.measurements["collectives"] = {test::collective("all_reduce", 1024 * kMiB, 27.4)};
  run.environment["variables"]["NCCL_P2P_DISABLE"] = "1";
  EXPECT_EQ(ids(run), std::set<std::string>{"nccl-env-path-removed"});
}

TEST(RuleMeasured, WhatIfSeriesOfTheLadderAreSlowOnPurpose) {
  test::RunJson run = test::nvswitch_run(2);
  run.environment["variables"]["NCCL_NVLS_ENABLE"] = "0";
  run.measurements["collectives"] = {
      test::collective("all_reduce", 512 * kMiB, 314.2, 2, {{"NCCL_NVLS_ENABLE", "0"}}),
      test::collective("all_reduce", 512 * kMiB, 90.0, 2, {{"NCCL_NVLS_ENABLE", "0"}, {"NCCL_ALGO", "Tree"}}),
      test::collective("all_reduce", 512 * kMiB, 12.0, 2, {{"NCCL_P2P_DISABLE", "1"}, {"NCCL_SHM_DISABLE", "1"}})};
  EXPECT_TRUE(ids(run).empty());
  const model::Run typed = run;
  const Evidence evidence(typed);
  ASSERT_EQ(evidence.collectives.size(), 3u);
  EXPECT_FALSE(evidence.collectives[0].what_if);
  EXPECT_TRUE(evidence.collectives[1].what_if);
  EXPECT_TRUE(evidence.collectives[2].what_if);
  // The machine's busbw is the default series, whatever the order.
  const auto largest = largest_collective_points(evidence, 0);
  ASSERT_EQ(largest.size(), 1u);
  EXPECT_DOUBLE_EQ(largest[0].busbw(), 314.2);
}

TEST(RuleMeasured, AsymmetryBeyondThresholdAndNoise) {
  test::RunJson run = test::nvswitch_run(2);
  test::add_copies(run, {copy_point(0, 1, "ce", 256 * kMiB, 390.0), copy_point(1, 0, "ce", 256 * kMiB, 360.0)});
  EXPECT_EQ(ids(run), std::set<std::string>{"pair-asymmetric"});
  // The same gap inside the points' noise (CI/CV of 10% each) is not a finding.
  test::add_copies(run, {copy_point(0, 1, "ce", 256 * kMiB, 390.0, 0.1), copy_point(1, 0, "ce", 256 * kMiB, 360.0, 0.1)});
  EXPECT_EQ(ids(run).count("pair-asymmetric"), 0u);
  // 3% is within the 5% threshold.
  test::add_copies(run, {copy_point(0, 1, "ce", 256 * kMiB, 390.0), copy_point(1, 0, "ce", 256 * kMiB, 378.3)});
  EXPECT_TRUE(ids(run).empty());
}

TEST(RuleMeasured, OneSlowGpuAmongFourIsNamed) {
  test::RunJson run = test::nvswitch_run(4);
  nlohmann::json points = nlohmann::json::array();
  for (int s = 0; s < 4; ++s) {
    for (int d = 0; d < 4; ++d) {
      if (s != d) points.push_back(copy_point(s, d, "ce", 256 * kMiB, s == 2 || d == 2 ? 330.0 : 392.0));
    }
  }
  test::add_copies(run, points);
  const auto found = find_problems(run);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].id, "gpu-slow");
  EXPECT_EQ(found[0].gpus, std::vector<int>{2});
}

TEST(RuleMeasured, ShmOnAnNvlinkPairIsATransportMismatchUnlessTheRunAskedForIt) {
  test::RunJson run = test::nvswitch_run(2);
  nlohmann::json connections = nlohmann::json::array();
  for (int c = 0; c < 4; ++c) connections.push_back({{"rank", 0}, {"peer", 1}, {"channel", c}, {"transport", "SHM"}});
  run.runtime = {{"runs", {{{"context", "coll all_reduce"}, {"env", nlohmann::json::object()}, {"connections", connections}}}}};
  const auto found = find_problems(run);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].id, "transport-mismatch");
  EXPECT_EQ(found[0].severity, Severity::kError);
  run.runtime["runs"][0]["env"] = {{"NCCL_P2P_DISABLE", "1"}};  // a ladder layer
  EXPECT_TRUE(find_problems(run).empty());
}

}  // namespace
}  // namespace linkscope::diagnose
