// nccl-choice-differs, busbw-below-prediction and the nccl-model-busbw hypothesis: measurements and NCCL's TUNING
// lines judged against NCCL's own model of the 2 x H200 topology (tests/fixtures/h200x2/nccl-topo-dump.xml).
#include <algorithm>
#include <set>

#include <gtest/gtest.h>

#include "diagnose/diagnose.hpp"
#include "diagnose_test_runs.hpp"
#include "support/run_command.hpp"
#include "topo/prediction_view.hpp"
#include "topo/topology_model.hpp"
#include "support/model_versions.hpp"

namespace linkscope::diagnose {
namespace {

using test::kMiB;

test::RunJson predicted_run() {
  test::RunJson run = test::nvswitch_run(2);
  const auto model = topo::load_topology_file(test::fixture("h200x2/nccl-topo-dump.xml"), Environment{}, test::nccl_2_28_9());
  model::put_prediction(run.model, topo::predict_topology(model, Environment{}));
  return run;
}

nlohmann::json call(const std::string& op, std::uint64_t size, const std::string& algo, const std::string& proto,
                    int channels) {
  return {{"collective", op}, {"bytes", size},         {"size_bytes", size}, {"algorithm", algo},
          {"protocol", proto}, {"channel_lo", 0}, {"channel_hi", channels - 1}, {"calls", 20}};
}

void add_runtime(test::RunJson& run, nlohmann::json calls, nlohmann::json env = nlohmann::json::object()) {
  run.runtime = {{"runs", {{{"context", "coll all_reduce"}, {"env", env}, {"status", "recorded"}, {"nranks", 2},
                            {"nnodes", 1}, {"tuning", std::move(calls)}}}}};
}

const model::Finding* find(const std::vector<model::Finding>& findings, const std::string& id) {
  const auto it = std::find_if(findings.begin(), findings.end(), [&](const auto& f) { return f.id == id; });
  return it == findings.end() ? nullptr : &*it;
}

const model::Hypothesis* hypothesis(const std::vector<model::Hypothesis>& all, const std::string& id) {
  const auto it = std::find_if(all.begin(), all.end(), [&](const auto& h) { return h.id == id; });
  return it == all.end() ? nullptr : &*it;
}

TEST(RulePrediction, ModelPredictionIsWhatTheRulesRead) {
  const model::Run run = predicted_run();
  const auto* choice = run.topology.prediction.choice("all_reduce", 64 * kMiB);
  ASSERT_NE(choice, nullptr);
  EXPECT_EQ(choice->algorithm, "Ring");
  EXPECT_EQ(choice->protocol, "Simple");
  EXPECT_EQ(choice->channels, 24);
}

TEST(RulePrediction, HealthyH200NumbersAreNotBelowThePrediction) {
  test::RunJson run = predicted_run();
  // nccl-tests 2.19.6 on the 2 x H200 machine (tests/fixtures/h200x2/nccl-tests-2.19.6): the lowest share of the
  // prediction from 16 MiB (all_gather 32 MiB) and the latency-bound 1 MiB all_reduce.
  run.measurements["collectives"] = {test::collective("all_reduce", 1024 * kMiB, 326.40),
                                     test::collective("all_gather", 32 * kMiB, 180.51),
                                     test::collective("all_reduce", 1 * kMiB, 10.0)};
  const auto result = diagnose::diagnose(run);
  EXPECT_EQ(find(result.findings, "busbw-below-prediction"), nullptr);
  const auto* h = hypothesis(result.hypotheses, "nccl-model-busbw");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->verdict, model::Verdict::kConfirmed) << h->evidence;
  EXPECT_NE(h->statement.find("all_reduce: Ring/LL on 1-24 channels"), std::string::npos) << h->statement;
  EXPECT_NE(h->evidence.find("all_gather at 32 MiB"), std::string::npos) << h->evidence;
  EXPECT_EQ(h->numbers["sizes"].size(), 2u);  // 1 MiB is latency: not judged
}

TEST(RulePrediction, BusyGpuBusbwIsBelowThePrediction) {
  test::RunJson run = predicted_run();
  // 149.1 GB/s at 256 MiB with a foreign job on GPU1 (the bandwidth-below-expected anchor) vs 352.8 predicted.
  run.measurements["collectives"] = {test::collective("all_reduce", 256 * kMiB, 149.1)};
  const auto result = diagnose::diagnose(run);
  const auto* f = find(result.findings, "busbw-below-prediction");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, model::Severity::kWarning);
  ASSERT_FALSE(f->evidence.empty());
  EXPECT_NE(f->evidence[0].find("all_reduce at 256 MiB: busbw 149.1 GB/s measured"), std::string::npos)
      << f->evidence[0];
  EXPECT_NE(f->evidence[0].find("Ring/Simple on 24 channels"), std::string::npos) << f->evidence[0];
  EXPECT_NEAR(f->numbers["worst_share"].get<double>(), 149.1 / 352.81, 0.01);
  const auto* h = hypothesis(result.hypotheses, "nccl-model-busbw");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->verdict, model::Verdict::kRefuted);
}

TEST(RulePrediction, ABusyGpuIsLeftToNoisyMeasurement) {
  test::RunJson run = predicted_run();
  run.measurements["collectives"] = {test::collective("all_reduce", 256 * kMiB, 149.1)};
  run.measurements["collectives"][0]["devices"] = {{{"rank", 0}, {"cuda_device", 0}}, {{"rank", 1}, {"cuda_device", 1}}};
  EXPECT_NE(find(diagnose::diagnose(run).findings, "busbw-below-prediction"), nullptr);
  run.system["gpus"][1]["processes"] = {{{"pid", 4242}, {"name", "python3"}}};
  const auto result = diagnose::diagnose(run);
  EXPECT_EQ(find(result.findings, "busbw-below-prediction"), nullptr);
  EXPECT_NE(find(result.findings, "noisy-measurement"), nullptr);
}

TEST(RulePrediction, OnlyComparableSeriesAreJudged) {
  test::RunJson run = predicted_run();
  run.measurements["collectives"] = {
      // a size the model did not predict, another rank count, a what-if series: none is NCCL's prediction.
      test::collective("all_reduce", 96 * kMiB, 10.0), test::collective("all_reduce", 256 * kMiB, 10.0, 4),
      test::collective("all_reduce", 256 * kMiB, 27.4, 2, {{"NCCL_P2P_DISABLE", "1"}})};
  const auto result = diagnose::diagnose(run);
  EXPECT_EQ(find(result.findings, "busbw-below-prediction"), nullptr);
  const auto* h = hypothesis(result.hypotheses, "nccl-model-busbw");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->verdict, model::Verdict::kInconclusive);
}

TEST(RulePrediction, NoPredictionNoHypothesis) {
  test::RunJson run = test::nvswitch_run(2);
  run.measurements["collectives"] = {test::collective("all_reduce", 256 * kMiB, 10.0)};
  const auto result = diagnose::diagnose(run);
  EXPECT_EQ(find(result.findings, "busbw-below-prediction"), nullptr);
  EXPECT_EQ(hypothesis(result.hypotheses, "nccl-model-busbw"), nullptr);
}

TEST(RulePrediction, NcclChoseWhatItsModelPredicts) {
  test::RunJson run = predicted_run();
  // The model's choices; at 64 KiB the launch spreads over fewer channels than the tuner's maximum (8), allowed
  // below collective_plateau_min_bytes.
  add_runtime(run, {call("all_reduce", 64 * kMiB, "Ring", "Simple", 24), call("all_reduce", 8, "Ring", "LL", 1),
                    call("all_reduce", 64 * 1024, "Ring", "LL", 4)});
  EXPECT_EQ(find(diagnose::diagnose(run).findings, "nccl-choice-differs"), nullptr);
}

TEST(RulePrediction, AnotherAlgorithmProtocolOrChannelCountDiffers) {
  test::RunJson run = predicted_run();
  add_runtime(run, {call("all_reduce", 64 * kMiB, "Tree", "Simple", 24),     // algorithm
                    call("all_gather", 16 * kMiB, "Ring", "LL128", 24),      // protocol
                    call("all_reduce", 8, "Ring", "LL", 2),                  // more channels than the tuner allows
                    call("broadcast", 512 * kMiB, "Ring", "Simple", 12),     // fewer channels at a large size
                    call("all_reduce", 4 * kMiB, "Ring", "Simple", 24)});    // as predicted
  const auto result = diagnose::diagnose(run);
  const auto* f = find(result.findings, "nccl-choice-differs");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->numbers["compared"], 5);
  ASSERT_EQ(f->numbers["differences"].size(), 4u);
  EXPECT_NE(f->title.find("4 of 5"), std::string::npos) << f->title;
  EXPECT_NE(f->evidence[0].find("all_reduce at 64 MiB: NCCL used Tree/Simple on 24 channels, its model predicts "
                                "Ring/Simple on 24 channels"),
            std::string::npos)
      << f->evidence[0];
}

TEST(RulePrediction, RunsOfAnotherConfigurationAreNotCompared) {
  test::RunJson run = predicted_run();
  add_runtime(run, {call("all_reduce", 64 * kMiB, "Tree", "LL", 24)}, {{"NCCL_ALGO", "Tree"}});
  EXPECT_EQ(find(diagnose::diagnose(run).findings, "nccl-choice-differs"), nullptr);
  run.runtime["runs"][0]["env"] = nlohmann::json::object();
  run.runtime["runs"][0]["nranks"] = 4;
  EXPECT_EQ(find(diagnose::diagnose(run).findings, "nccl-choice-differs"), nullptr);
  run.runtime["runs"][0]["nranks"] = 2;
  EXPECT_NE(find(diagnose::diagnose(run).findings, "nccl-choice-differs"), nullptr);
}

}  // namespace
}  // namespace linkscope::diagnose
