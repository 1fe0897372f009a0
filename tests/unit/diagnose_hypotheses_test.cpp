// Hypotheses: predictions from system/model only, verdicts from measurements, `untested` when the measurement is
// absent, and saved predictions judged as they were made.
#include <gtest/gtest.h>

#include "diagnose/diagnose.hpp"
#include "diagnose/hypotheses.hpp"
#include "diagnose_test_runs.hpp"
#include "model/run_file.hpp"
#include "support/run_command.hpp"

namespace linkscope::diagnose {
namespace {

using test::copy_point;
using test::kMiB;

Hypothesis judged(const test::RunJson& run, const std::string& id) {
  for (const auto& h : test::judge_hypotheses(run)) {
    if (h.id == id) return h;
  }
  ADD_FAILURE() << "no hypothesis " << id;
  return {};
}

TEST(DiagnoseHypotheses, PredictionsIgnoreMeasurements) {
  const model::Run measured = model::read_run_file(test::fixture("runs/h200x2-healthy.json"));
  model::Run facts_only = measured;
  facts_only.measurements = {};
  facts_only.runtime = {};
  const auto a = make_hypotheses(measured);
  const auto b = make_hypotheses(facts_only);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(model::to_json(a[i]), model::to_json(b[i])) << a[i].id;
    EXPECT_EQ(a[i].verdict, Verdict::kUntested);
  }
}

TEST(DiagnoseHypotheses, AbsentMeasurementsLeaveThemUntestedWithTheReason) {
  const test::RunJson run = test::nvswitch_run(2);
  for (const auto& h : test::judge_hypotheses(run)) {
    EXPECT_EQ(h.verdict, Verdict::kUntested) << h.id;
    EXPECT_NE(h.evidence.find("not measured in this run"), std::string::npos) << h.id << ": " << h.evidence;
  }
}

TEST(DiagnoseHypotheses, SavedPredictionsAreJudgedAsMade) {
  test::RunJson run = test::nvswitch_run(2);
  test::add_copies(run, {copy_point(0, 1, "ce", 512 * kMiB, 393.8), copy_point(1, 0, "ce", 512 * kMiB, 393.7)});
  EXPECT_EQ(judged(run, "copy-reaches-link-share").verdict, Verdict::kConfirmed);
  // A run saved with a stricter prediction keeps it.
  nlohmann::json saved = nlohmann::json::array();
  for (auto h : make_hypotheses(run)) {
    if (h.id == "copy-reaches-link-share") h.numbers["by_type"]["NV18"]["predicted_min_gbps"] = 450.0;
    saved.push_back(model::to_json(h));
  }
  run.hypotheses = saved;
  const Hypothesis h = judged(run, "copy-reaches-link-share");
  EXPECT_EQ(h.verdict, Verdict::kRefuted);
  EXPECT_NE(h.evidence.find("predicted >= 450.0 GB/s"), std::string::npos) << h.evidence;
}

TEST(DiagnoseHypotheses, DirectedPairsThatDisagreeRefuteTheSymmetryPrediction) {
  test::RunJson run = test::nvswitch_run(2);
  test::add_copies(run, {copy_point(0, 1, "sm_read", 512 * kMiB, 375.6), copy_point(1, 0, "sm_read", 512 * kMiB, 170.9)});
  const Hypothesis h = judged(run, "directed-pairs-agree");
  EXPECT_EQ(h.verdict, Verdict::kRefuted);
  EXPECT_NEAR(h.numbers.value("largest_spread", 0.0), 0.545, 0.001);
}

TEST(DiagnoseHypotheses, TimeProportionalToSizeRefutesLatencyBound) {
  test::RunJson run = test::nvswitch_run(2);
  // 1 KiB in 1 us and 64 KiB in 64 us: a bandwidth-bound curve where a latency-bound one was predicted.
  auto a = copy_point(0, 1, "ce", 1024, 1.024);
  auto b = copy_point(0, 1, "ce", 64 * 1024, 1.024);
  test::add_copies(run, {a, b});
  EXPECT_EQ(judged(run, "small-messages-latency-bound").verdict, Verdict::kRefuted);
}

TEST(DiagnoseHypotheses, NumaHypothesisExistsOnlyWithSeveralNodes) {
  test::RunJson run = test::nvswitch_run(2);
  for (const auto& h : make_hypotheses(run)) EXPECT_NE(h.id, "numa-binding-neutral");
  run.system["numa_nodes"] = {{{"id", 0}}, {{"id", 1}}};
  run.measurements["numa_sweep"] = {{"nodes", {0, 1}}, {"largest_relative_difference", 0.004}};
  EXPECT_EQ(judged(run, "numa-binding-neutral").verdict, Verdict::kConfirmed);
  run.measurements["numa_sweep"]["largest_relative_difference"] = 0.08;
  EXPECT_EQ(judged(run, "numa-binding-neutral").verdict, Verdict::kRefuted);
}

TEST(DiagnoseHypotheses, PatternsSharingAnEndpointMustContend) {
  test::RunJson run = test::nvswitch_run(3);
  run.measurements["patterns"] = {
      {{"name", "fan-out"}, {"status", "ok"}, {"bytes", 256 * kMiB},
       {"edges", {{{"src", 0}, {"dst", 1}}, {{"src", 0}, {"dst", 2}}}}, {"aggregate_gbps", 470.0},
       {"sum_alone_gbps", 787.0}}};
  EXPECT_EQ(judged(run, "disjoint-add-shared-contend").verdict, Verdict::kConfirmed);
  run.measurements["patterns"][0]["aggregate_gbps"] = 780.0;  // no contention where the links must share
  EXPECT_EQ(judged(run, "disjoint-add-shared-contend").verdict, Verdict::kRefuted);
}

TEST(DiagnoseHypotheses, TransportIsPredictedFromPathsAndEnvironment) {
  test::RunJson run = test::nvswitch_run(2);
  run.environment["variables"]["NCCL_P2P_LEVEL"] = "LOC";
  const auto hypotheses = make_hypotheses(run);
  const auto it = std::find_if(hypotheses.begin(), hypotheses.end(),
                               [](const Hypothesis& h) { return h.id == "nccl-uses-predicted-transport"; });
  ASSERT_NE(it, hypotheses.end());
  EXPECT_NE(it->prediction.find("SHM for 0-1 (NVL)"), std::string::npos) << it->prediction;
}


// The ladder's network layer takes P2P and SHM away: NET is what NCCL must use there, not a refutation.
TEST(DiagnoseHypotheses, TransportOfALayerWithoutP2pAndShmIsPredictedAsNet) {
  test::RunJson run = test::nvswitch_run(2);
  auto connections = [](const std::string& transport) {
    nlohmann::json list = nlohmann::json::array();
    for (int c = 0; c < 2; ++c) list.push_back({{"rank", 0}, {"peer", 1}, {"channel", c}, {"transport", transport}});
    return list;
  };
  run.runtime = {{"runs",
                  {{{"context", "coll all_reduce"}, {"env", nlohmann::json::object()},
                    {"connections", connections("P2P/direct pointer")}},
                   {{"context", "ladder network"},
                    {"env", {{"NCCL_P2P_DISABLE", "1"}, {"NCCL_SHM_DISABLE", "1"}}},
                    {"connections", connections("NET/Socket")}},
                   {{"context", "ladder p2p-disabled"},
                    {"env", {{"NCCL_P2P_DISABLE", "1"}}},
                    {"connections", connections("SHM")}}}}};
  const auto judged = test::judge_hypotheses(run);
  const auto it = std::find_if(judged.begin(), judged.end(),
                               [](const Hypothesis& h) { return h.id == "nccl-uses-predicted-transport"; });
  ASSERT_NE(it, judged.end());
  EXPECT_EQ(it->verdict, Verdict::kConfirmed) << it->evidence;
  EXPECT_NE(it->evidence.find("NET/Socket on 2 channel(s) (predicted NET)"), std::string::npos) << it->evidence;
}

}  // namespace
}  // namespace linkscope::diagnose
