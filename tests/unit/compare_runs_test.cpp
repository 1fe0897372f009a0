// compare: a difference is a change only beyond the threshold and the points' combined noise; regressions of
// numbers, findings and topology facts fail the gate.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "diagnose/diagnose.hpp"
#include "diagnose_test_runs.hpp"
#include "report/compare_runs.hpp"
#include "support/run_command.hpp"

namespace linkscope::report {
namespace {

using test::copy_point;
using test::kMiB;

RunDocument with_copy(double gbps, nlohmann::json cv, std::uint64_t bytes = 512 * kMiB) {
  RunDocument run = test::nvswitch_run(2);
  test::add_copies(run, nlohmann::json::array({copy_point(0, 1, "ce", bytes, gbps, cv)}));
  return run;
}

TEST(CompareRuns, ThresholdIsAPercentage) {
  EXPECT_DOUBLE_EQ(parse_threshold("5%"), 0.05);
  EXPECT_DOUBLE_EQ(parse_threshold("2.5"), 0.025);
  EXPECT_DOUBLE_EQ(parse_threshold("0%"), 0.0);
  for (const char* bad : {"", "%", "abc", "-1%", "100", "5%%", "1e400"}) {
    EXPECT_THROW(parse_threshold(bad), UsageError) << bad;
  }
}

TEST(CompareRuns, SameRunHasNoChange) {
  const RunDocument run = read_run_file(test::fixture("runs/h200x2-healthy.json"));
  const Comparison c = compare_runs(run, run, 0.05);
  EXPECT_TRUE(c.changes.empty());
  EXPECT_FALSE(c.regressed());
  EXPECT_GT(c.compared, 300);
  EXPECT_EQ(c.within, c.compared);
}

TEST(CompareRuns, ChangeWithinCombinedNoiseIsNotAChange) {
  // 12% drop, CV 10% on each side: combined noise 14%.
  Comparison c = compare_runs(with_copy(390.0, 0.10), with_copy(343.2, 0.10), 0.05);
  EXPECT_TRUE(c.changes.empty());
  EXPECT_EQ(c.within, 1);
  // 20% drop beyond the noise: a regression.
  c = compare_runs(with_copy(390.0, 0.10), with_copy(312.0, 0.10), 0.05);
  ASSERT_EQ(c.changes.size(), 1u);
  EXPECT_EQ(c.changes[0].kind, ChangeKind::kWorse);
  EXPECT_TRUE(c.regressed());
  // Without noise estimates the threshold decides; improvements are listed, never regressions.
  c = compare_runs(with_copy(300.0, nullptr), with_copy(390.0, nullptr), 0.05);
  ASSERT_EQ(c.changes.size(), 1u);
  EXPECT_EQ(c.changes[0].kind, ChangeKind::kBetter);
  EXPECT_FALSE(c.regressed());
  EXPECT_TRUE(compare_runs(with_copy(390.0, nullptr), with_copy(380.0, nullptr), 0.05).changes.empty());
}

TEST(CompareRuns, LatencyBoundPointsCompareTimeWithAnAssumedNoise) {
  // 8 KiB copy: 20% slower time without CV stays within 2 x 25% assumed noise.
  Comparison c = compare_runs(with_copy(0.5, nullptr, 8192), with_copy(0.4167, nullptr, 8192), 0.05);
  EXPECT_TRUE(c.changes.empty());
  c = compare_runs(with_copy(0.5, nullptr, 8192), with_copy(0.2, nullptr, 8192), 0.05);
  ASSERT_EQ(c.changes.size(), 1u);
  EXPECT_NE(c.changes[0].what.find("(time)"), std::string::npos);
  EXPECT_EQ(c.changes[0].kind, ChangeKind::kWorse);
}

TEST(CompareRuns, NewWarningFindingAndLostNvlinksAreRegressions) {
  RunDocument base = test::nvswitch_run(2);
  RunDocument current = test::nvswitch_run(2);
  current.system["gpus"][1] = test::gpu_json(1, 16);
  diagnose::diagnose(base);
  diagnose::diagnose(current);
  const Comparison c = compare_runs(base, current, 0.05);
  EXPECT_TRUE(c.regressed());
  bool finding = false, links = false;
  for (const auto& change : c.changes) {
    finding = finding || (change.category == "finding" && change.what.rfind("nvlink-link-down", 0) == 0 &&
                          change.regression);
    links = links || (change.what == "GPU1 active NVLinks" && change.base == "18" && change.current == "16" &&
                      change.regression);
  }
  EXPECT_TRUE(finding);
  EXPECT_TRUE(links);
  // And the other way round it is an improvement.
  EXPECT_FALSE(compare_runs(current, base, 0.05).regressed());
}

TEST(CompareRuns, TwoRealNcclTestsRunsAgreeAndABusyGpuRegresses) {
  const RunDocument healthy = read_run_file(test::fixture("runs/h200x2-healthy.json"));
  const RunDocument rerun = read_run_file(test::fixture("runs/h200x2-rerun.json"));
  EXPECT_FALSE(compare_runs(healthy, rerun, 0.05).regressed());
  RunDocument busy = read_run_file(test::fixture("runs/h200x2-busy-gpu1.json"));
  diagnose::diagnose(busy);
  const Comparison c = compare_runs(healthy, busy, 0.05);
  EXPECT_TRUE(c.regressed());
  const std::string text = render_comparison_text(c);
  EXPECT_NE(text.find("326.4 GB/s -> 149.1 GB/s"), std::string::npos) << text;
  EXPECT_NE(text.find("REGRESSION"), std::string::npos);
  EXPECT_TRUE(comparison_to_json(c).at("regressed").get<bool>());
}

}  // namespace
}  // namespace linkscope::report
