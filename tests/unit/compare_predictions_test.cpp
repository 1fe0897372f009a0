// compare's view of NCCL's model: a different choice at a size both runs predicted is one change per op; the
// lowest measured / predicted busbw moving beyond the threshold is better or worse; neither fails the gate.
#include <gtest/gtest.h>

#include "model/run_file.hpp"
#include "report/compare_predictions.hpp"
#include "support/run_command.hpp"

namespace linkscope::report {
namespace {

constexpr std::uint64_t kGiB = 1024ull * 1024ull * 1024ull;

model::TuningChoice choice(const std::string& op, std::uint64_t bytes, const std::string& algorithm, int channels,
                           double busbw) {
  model::TuningChoice c;
  c.collective = op;
  c.size_bytes = bytes;
  c.tuner_bytes = bytes;
  c.algorithm = algorithm;
  c.protocol = "Simple";
  c.channels = channels;
  c.busbw_gbps = busbw;
  return c;
}

// The 2 x H200 run (all_reduce measured up to 8 GiB, 344.66 GB/s out of place at 8 GiB; all_gather 292.98) with
// NCCL's prediction for all_reduce at 4 and 8 GiB and all_gather at 8 GiB. The 4 GiB and all_gather predictions
// (300) are below what was measured, so all_reduce at 8 GiB is the lowest share in every variant.
model::Run predicted(double all_reduce_8g_busbw, const std::string& algorithm_4g = "Ring") {
  model::Run run = model::read_run_file(test::fixture("runs/h200x2-healthy.json"));
  model::Prediction& p = run.topology.prediction;
  p.n_ranks = 2;
  p.tuning = {choice("all_reduce", 4 * kGiB, algorithm_4g, 16, 300.0),
              choice("all_reduce", 8 * kGiB, "Ring", 16, all_reduce_8g_busbw),
              choice("all_gather", 8 * kGiB, "Ring", 16, 300.0)};
  return run;
}

const Change* find(const Comparison& c, const std::string& what_prefix) {
  for (const auto& change : c.changes) {
    if (change.what.rfind(what_prefix, 0) == 0) return &change;
  }
  return nullptr;
}

TEST(ComparePredictions, SamePredictionIsNoChange) {
  Comparison c;
  compare_predictions(predicted(360.0), predicted(360.0), c);
  EXPECT_TRUE(c.changes.empty());
}

TEST(ComparePredictions, AnotherChoiceAtASharedSizeIsOneChangePerOp) {
  Comparison c;
  compare_predictions(predicted(360.0), predicted(360.0, "Tree"), c);
  const Change* change = find(c, "all_reduce: NCCL's choice");
  ASSERT_NE(change, nullptr);
  EXPECT_EQ(change->category, "prediction");
  EXPECT_NE(change->what.find("at 1 size(s), first 4 GiB"), std::string::npos) << change->what;
  EXPECT_NE(change->base.find("Ring"), std::string::npos) << change->base;
  EXPECT_NE(change->current.find("Tree"), std::string::npos) << change->current;
  EXPECT_FALSE(change->regression);
  EXPECT_EQ(find(c, "all_gather"), nullptr);  // same choice there
}

TEST(ComparePredictions, LowestShareMovingBeyondTheThresholdIsWorseButNotARegression) {
  // Base: predicted 360 at 8 GiB, measured 344.66 (96%). Current: the prediction rose to 450 (77%).
  Comparison c;
  c.threshold = 0.05;
  compare_predictions(predicted(360.0), predicted(450.0), c);
  const Change* change = find(c, "lowest measured / predicted busbw");
  ASSERT_NE(change, nullptr);
  EXPECT_EQ(change->kind, ChangeKind::kWorse);
  EXPECT_FALSE(change->regression);
  ASSERT_TRUE(change->relative.has_value());
  EXPECT_NEAR(*change->relative, 360.0 / 450.0 - 1.0, 1e-9);
  EXPECT_NE(change->base.find("all_reduce 8 GiB"), std::string::npos) << change->base;

  Comparison back;
  back.threshold = 0.05;
  compare_predictions(predicted(450.0), predicted(360.0), back);
  const Change* better = find(back, "lowest measured / predicted busbw");
  ASSERT_NE(better, nullptr);
  EXPECT_EQ(better->kind, ChangeKind::kBetter);
}

TEST(ComparePredictions, ShareWithinTheThresholdIsNoChange) {
  Comparison c;
  c.threshold = 0.05;
  compare_predictions(predicted(360.0), predicted(370.0), c);  // 2.7% apart
  EXPECT_EQ(find(c, "lowest measured / predicted busbw"), nullptr);
}

TEST(ComparePredictions, ARunWithoutPredictionComparesNothing) {
  Comparison c;
  compare_predictions(model::read_run_file(test::fixture("runs/h200x2-healthy.json")), predicted(360.0), c);
  EXPECT_TRUE(c.changes.empty());
}

}  // namespace
}  // namespace linkscope::report
