// Diagnosis of runs built from real captures (tests/fixtures/runs, see its README): the healthy machine
// gives no warning, and each planted fault gives its finding with the right cause and nothing unrelated.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "model/run_file.hpp"
#include "diagnose/diagnose.hpp"
#include "support/run_command.hpp"

namespace linkscope::diagnose {
namespace {

model::Run diagnosed(const std::string& name) {
  model::Run run = model::read_run_file(test::fixture("runs/" + name));
  diagnose_into(run);
  return run;
}

std::set<std::string> finding_ids(const model::Run& run, Severity at_least = Severity::kInfo) {
  std::set<std::string> ids;
  for (const auto& finding : run.findings) {
    if (finding.severity >= at_least) ids.insert(finding.id);
  }
  return ids;
}

Finding finding(const model::Run& run, const std::string& id) {
  for (const auto& f : run.findings) {
    if (f.id == id) return f;
  }
  ADD_FAILURE() << "no finding " << id << " in " << model::to_json(run.findings).dump(2);
  return {};
}

Hypothesis hypothesis(const model::Run& run, const std::string& id) {
  for (const auto& h : run.hypotheses) {
    if (h.id == id) return h;
  }
  ADD_FAILURE() << "no hypothesis " << id << " in " << model::to_json(run.hypotheses).dump(2);
  return {};
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

TEST(DiagnoseFixtureRuns, HealthyH200x2HasNoWarningAndEveryHypothesisJudgedWithNumbers) {
  const model::Run run = diagnosed("h200x2-healthy.json");
  EXPECT_TRUE(finding_ids(run).empty()) << model::to_json(run.findings).dump(2);
  const auto hypotheses = run.hypotheses;
  ASSERT_GE(hypotheses.size(), 7u) << model::to_json(run.hypotheses).dump(2);
  for (const auto& h : hypotheses) {
    EXPECT_EQ(h.verdict, Verdict::kConfirmed) << h.id << ": " << h.evidence;
    EXPECT_NE(h.evidence.find_first_of("0123456789"), std::string::npos) << h.id << " has no numbers: " << h.evidence;
  }
  EXPECT_NE(hypothesis(run, "copy-reaches-link-share").evidence.find("393.7"), std::string::npos);
  EXPECT_NE(hypothesis(run, "busbw-reaches-link-share").evidence.find("344.7"), std::string::npos);
}

TEST(DiagnoseFixtureRuns, NcclP2pDisableIsFoundWithItsCauseAndNothingElse) {
  const model::Run run = diagnosed("h200x2-nccl-p2p-disable.json");
  EXPECT_EQ(finding_ids(run), std::set<std::string>{"nccl-env-path-removed"}) << model::to_json(run.findings).dump(2);
  const Finding f = finding(run, "nccl-env-path-removed");
  EXPECT_EQ(f.severity, Severity::kError);
  EXPECT_NE(f.cause.find("NCCL_P2P_DISABLE=1"), std::string::npos) << f.cause;
  EXPECT_NE(joined(f.evidence).find("27.4 GB/s"), std::string::npos) << joined(f.evidence);
  EXPECT_NE(joined(f.evidence).find("SHM"), std::string::npos) << joined(f.evidence);
  // The model and the run agree that NCCL goes through SHM; the busbw prediction fails with the number.
  EXPECT_EQ(hypothesis(run, "nccl-uses-predicted-transport").verdict, Verdict::kConfirmed);
  EXPECT_EQ(hypothesis(run, "busbw-reaches-link-share").verdict, Verdict::kRefuted);
}

TEST(DiagnoseFixtureRuns, CudaVisibleDevicesIsFoundWithItsCauseAndNothingElse) {
  const model::Run run = diagnosed("h200x2-cuda-visible-devices-1.json");
  EXPECT_EQ(finding_ids(run), std::set<std::string>{"gpu-count-mismatch"}) << model::to_json(run.findings).dump(2);
  const Finding f = finding(run, "gpu-count-mismatch");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_NE(f.cause.find("CUDA_VISIBLE_DEVICES=1"), std::string::npos) << f.cause;
  EXPECT_EQ(f.numbers.value("nvml_gpu_count", 0), 2);
  EXPECT_EQ(f.numbers.value("cuda_device_count", 0), 1);
}

TEST(DiagnoseFixtureRuns, BusyGpuIsFoundAsNoiseAndAsymmetryBlamingThatGpu) {
  const model::Run run = diagnosed("h200x2-busy-gpu1.json");
  EXPECT_EQ(finding_ids(run), (std::set<std::string>{"noisy-measurement", "pair-asymmetric"})) << model::to_json(run.findings).dump(2);
  const Finding noisy = finding(run, "noisy-measurement");
  EXPECT_NE(noisy.cause.find("GPU1"), std::string::npos) << noisy.cause;
  EXPECT_NE(noisy.cause.find("4242"), std::string::npos) << noisy.cause;
  EXPECT_NE(joined(noisy.evidence).find("149.1 GB/s"), std::string::npos) << joined(noisy.evidence);
  const Finding asymmetric = finding(run, "pair-asymmetric");
  EXPECT_EQ(asymmetric.numbers.value("slow_src", -1), 1);
  EXPECT_EQ(asymmetric.numbers.value("slow_dst", -1), 0);
  EXPECT_EQ(asymmetric.numbers.value("method", std::string()), "sm_read");
  EXPECT_NEAR(asymmetric.numbers.value("slow_gbps", 0.0) / asymmetric.numbers.value("fast_gbps", 1.0), 0.455, 0.01);
  EXPECT_NE(asymmetric.cause.find("GPU1"), std::string::npos) << asymmetric.cause;
  EXPECT_NE(asymmetric.next_command.find("1>0"), std::string::npos) << asymmetric.next_command;
}

TEST(DiagnoseFixtureRuns, HealthyTopologyFileAloneGivesNoFinding) {
  const model::Run run = diagnosed("hgx-h200-8gpu-model.json");
  EXPECT_TRUE(finding_ids(run).empty()) << model::to_json(run.findings).dump(2);
  EXPECT_EQ(hypothesis(run, "nvlink-graph-complete").verdict, Verdict::kUntested);
}

TEST(DiagnoseFixtureRuns, EightGpuHealthyRunHasNoFinding) {
  const model::Run run = diagnosed("hgx-h200-8gpu-synthetic.json");
  EXPECT_TRUE(finding_ids(run).empty()) << model::to_json(run.findings).dump(2);
}

TEST(DiagnoseFixtureRuns, EightGpuRunWithOneSlowGpuNamesThatGpu) {
  const model::Run run = diagnosed("hgx-h200-8gpu-synthetic-gpu5-slow.json");
  EXPECT_EQ(finding_ids(run), std::set<std::string>{"gpu-slow"}) << model::to_json(run.findings).dump(2);
  EXPECT_EQ(finding(run, "gpu-slow").gpus, std::vector<int>{5});
}

}  // namespace
}  // namespace linkscope::diagnose
