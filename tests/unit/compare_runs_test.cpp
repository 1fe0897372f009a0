// compare: a difference is a change only beyond the threshold and the points' combined noise; regressions of
// numbers, findings and topology facts fail the gate.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "diagnose/diagnose.hpp"
#include "model/run_file.hpp"
#include "report/compare_runs.hpp"
#include "support/run_command.hpp"

namespace linkscope::report {
namespace {

constexpr std::uint64_t kMiB = 1024ull * 1024ull;

model::Run fixture_run(const std::string& name) { return model::read_run_file(test::fixture("runs/" + name)); }

// The 2 x H200 machine (NV18 through NVSwitch) with one CE copy GPU0->GPU1 as its only measurement; `cv` 0 means
// the run recorded no noise estimate.
model::Run with_copy(double gbps, double cv, std::uint64_t bytes = 512 * kMiB) {
  model::Run run = fixture_run("h200x2-healthy.json");
  run.measurements = {};
  model::CopyPoint point;
  point.src = 0;
  point.dst = 1;
  point.method = "ce";
  point.bytes = bytes;
  point.bandwidth_gbps = model::Stat3{gbps, gbps, gbps, gbps};
  point.cv = cv;
  run.measurements.p2p = model::P2pResults{};
  run.measurements.p2p->points.push_back(point);
  return run;
}

TEST(CompareRuns, ThresholdIsAPercentage) {
  EXPECT_DOUBLE_EQ(parse_threshold("5%"), 0.05);
  EXPECT_DOUBLE_EQ(parse_threshold("2.5"), 0.025);
  EXPECT_DOUBLE_EQ(parse_threshold("0%"), 0.0);
  EXPECT_DOUBLE_EQ(parse_threshold("100%"), 1.0);  // the message says 0 to 100: both ends included
  EXPECT_DOUBLE_EQ(parse_threshold("100"), 1.0);
  for (const char* bad : {"", "%", "abc", "-1%", "100.5", "101%", "5%%", "1e400"}) {
    EXPECT_THROW(parse_threshold(bad), UsageError) << bad;
  }
}

TEST(CompareRuns, SameRunHasNoChange) {
  const model::Run run = fixture_run("h200x2-healthy.json");
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
  c = compare_runs(with_copy(300.0, 0), with_copy(390.0, 0), 0.05);
  ASSERT_EQ(c.changes.size(), 1u);
  EXPECT_EQ(c.changes[0].kind, ChangeKind::kBetter);
  EXPECT_FALSE(c.regressed());
  EXPECT_TRUE(compare_runs(with_copy(390.0, 0), with_copy(380.0, 0), 0.05).changes.empty());
}

TEST(CompareRuns, LatencyBoundPointsCompareTimeWithAnAssumedNoise) {
  // 8 KiB copy: 20% slower time without CV stays within 2 x 25% assumed noise.
  Comparison c = compare_runs(with_copy(0.5, 0, 8192), with_copy(0.4167, 0, 8192), 0.05);
  EXPECT_TRUE(c.changes.empty());
  c = compare_runs(with_copy(0.5, 0, 8192), with_copy(0.2, 0, 8192), 0.05);
  ASSERT_EQ(c.changes.size(), 1u);
  EXPECT_NE(c.changes[0].what.find("(time)"), std::string::npos);
  EXPECT_EQ(c.changes[0].kind, ChangeKind::kWorse);
}

TEST(CompareRuns, NewWarningFindingAndLostNvlinksAreRegressions) {
  model::Run base = fixture_run("h200x2-healthy.json");
  model::Run current = base;
  auto& gpu1_links = *current.system.gpus[1].nvlinks;
  ASSERT_EQ(gpu1_links.size(), 18u);
  for (std::size_t l = 16; l < gpu1_links.size(); ++l) gpu1_links[l].active = false;
  diagnose::diagnose_into(base);
  diagnose::diagnose_into(current);
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
  const model::Run healthy = fixture_run("h200x2-healthy.json");
  const model::Run rerun = fixture_run("h200x2-rerun.json");
  EXPECT_FALSE(compare_runs(healthy, rerun, 0.05).regressed());
  model::Run busy = fixture_run("h200x2-busy-gpu1.json");
  diagnose::diagnose_into(busy);
  const Comparison c = compare_runs(healthy, busy, 0.05);
  EXPECT_TRUE(c.regressed());
  const std::string text = render_comparison_text(c);
  EXPECT_NE(text.find("326.4 GB/s -> 149.1 GB/s"), std::string::npos) << text;
  EXPECT_NE(text.find("REGRESSION"), std::string::npos);
  EXPECT_TRUE(comparison_to_json(c).at("regressed").get<bool>());
}

TEST(CompareRuns, NumbersMissingInTheNewRunFailTheGateAndAreNamed) {
  const model::Run base = with_copy(390.0, 0);
  model::Run empty = base;
  empty.measurements = {};
  const Comparison c = compare_runs(base, empty, 0.05);
  EXPECT_FALSE(c.regressed());
  EXPECT_TRUE(c.failed());
  ASSERT_EQ(c.missing.size(), 1u);
  EXPECT_EQ(c.missing[0], "ce uni GPU0->GPU1 at 512 MiB");
  const std::string text = render_comparison_text(c);
  EXPECT_NE(text.find("MISSING in the new run (1 of the base run's numbers)"), std::string::npos) << text;
  EXPECT_NE(text.find("  ce uni GPU0->GPU1 at 512 MiB\n"), std::string::npos) << text;
  EXPECT_NE(text.find("Result: FAILED"), std::string::npos) << text;
  EXPECT_EQ(text.find("no regression"), std::string::npos) << text;
  const nlohmann::json json = comparison_to_json(c);
  EXPECT_TRUE(json.at("failed").get<bool>());
  EXPECT_EQ(json.at("missing_in_new"), nlohmann::json::array({"ce uni GPU0->GPU1 at 512 MiB"}));
  // A new run that measured more than the base passes.
  model::Run more = base;
  more.measurements.p2p->points.push_back(with_copy(0.5, 0, 8192).measurements.p2p->points.front());
  const Comparison extra = compare_runs(base, more, 0.05);
  EXPECT_EQ(extra.only_in_current, 1);
  EXPECT_FALSE(extra.failed());
}

TEST(CompareRuns, NothingComparableFailsTheGate) {
  model::Run topology_only = fixture_run("h200x2-healthy.json");
  topology_only.measurements = {};
  for (const auto& [base, current] : {std::pair{topology_only, topology_only}, std::pair{topology_only, with_copy(390.0, 0)}}) {
    const Comparison c = compare_runs(base, current, 0.05);
    EXPECT_EQ(c.compared, 0);
    EXPECT_TRUE(c.failed());
    EXPECT_NE(render_comparison_text(c).find("nothing was compared (exit 6)"), std::string::npos);
    EXPECT_TRUE(comparison_to_json(c).at("nothing_compared").get<bool>());
  }
  EXPECT_FALSE(compare_runs(with_copy(390.0, 0), with_copy(390.0, 0), 0.05).failed());
}

TEST(CompareRuns, ManyMissingNumbersAreCountedAndTheListIsCut) {
  const model::Run healthy = fixture_run("h200x2-healthy.json");
  model::Run empty = healthy;
  empty.measurements = {};
  const Comparison c = compare_runs(healthy, empty, 0.05);
  EXPECT_GT(c.missing.size(), 300u);
  EXPECT_EQ(c.only_in_base, static_cast<int>(c.missing.size()));
  const std::string text = render_comparison_text(c);
  EXPECT_NE(text.find(fmt::format("and {} more", c.missing.size() - 20)), std::string::npos) << text;
}

}  // namespace
}  // namespace linkscope::report
