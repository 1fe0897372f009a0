// nvlink-missing, nvlink-link-down, pcie-link-degraded, p2p-unavailable on hardware facts: a GPU is compared with
// its identical peers, and normal states (idle PCIe downshift, a hybrid cube mesh) are not reported.
#include <set>

#include <gtest/gtest.h>

#include "diagnose/diagnose.hpp"
#include "diagnose_test_runs.hpp"

namespace linkscope::diagnose {
namespace {

using test::nvswitch_run;

std::set<std::string> ids(const test::RunJson& run) {
  std::set<std::string> out;
  for (const auto& f : find_problems(run)) out.insert(f.id);
  return out;
}

Finding only(const test::RunJson& run) {
  const auto findings = find_problems(run);
  EXPECT_EQ(findings.size(), 1u);
  return findings.empty() ? Finding{} : findings.front();
}

TEST(RuleLinks, HealthyMachineHasNoFinding) { EXPECT_TRUE(ids(nvswitch_run(8)).empty()); }

TEST(RuleLinks, GpuWithoutActiveNvlinkAmongNvlinkedPeersIsMissing) {
  test::RunJson run = nvswitch_run(4);
  run.system["gpus"][2] = test::gpu_json(2, 0);
  const Finding f = only(run);
  EXPECT_EQ(f.id, "nvlink-missing");
  EXPECT_EQ(f.severity, Severity::kError);
  EXPECT_EQ(f.gpus, std::vector<int>{2});
}

TEST(RuleLinks, GpuWithFewerActiveLinksIsLinkDownWithItsRate) {
  test::RunJson run = nvswitch_run(2);
  run.system["gpus"][1] = test::gpu_json(1, 16);
  const Finding f = only(run);
  EXPECT_EQ(f.id, "nvlink-link-down");
  EXPECT_EQ(f.gpus, std::vector<int>{1});
  std::string text;
  for (const auto& line : f.evidence) text += line + "\n";
  EXPECT_NE(text.find("16 active NVLinks, identical peers have 18"), std::string::npos) << text;
  EXPECT_NE(text.find("425.0 GB/s instead of 478.1"), std::string::npos) << text;
}

TEST(RuleLinks, SlowerLinkSpeedThanPeersIsLinkDown) {
  test::RunJson run = nvswitch_run(4);
  for (auto& link : run.system["gpus"][3]["nvlinks"]) link["speed_gbps"] = 20.0;
  const Finding f = only(run);
  EXPECT_EQ(f.id, "nvlink-link-down");
  EXPECT_EQ(f.severity, Severity::kWarning);
  EXPECT_EQ(f.gpus, std::vector<int>{3});
}

TEST(RuleLinks, RecoveryErrorsAreReported) {
  test::RunJson run = nvswitch_run(2);
  run.system["gpus"][0]["nvlinks"][5]["errors"]["recovery"] = 3;
  const Finding f = only(run);
  EXPECT_EQ(f.id, "nvlink-link-down");
  EXPECT_EQ(f.gpus, std::vector<int>{0});
}

TEST(RuleLinks, DifferentGpuModelsAreNotPeers) {
  test::RunJson run = nvswitch_run(2);
  run.system["gpus"][1] = test::gpu_json(1, 12);
  run.system["gpus"][1]["name"] = "NVIDIA A100-SXM4-80GB";
  run.system["gpus"][1]["sm"] = 80;
  EXPECT_TRUE(ids(run).empty());
}

TEST(RuleLinks, PairWithoutNvlinkOnAFullMeshIsMissingButAHybridCubeMeshIsNot) {
  // Four GPUs with direct links: five of six pairs NVLinked (one link missing) -> flagged.
  test::RunJson run = nvswitch_run(4);
  for (auto& gpu : run.system["gpus"]) {
    for (auto& link : gpu["nvlinks"]) link["remote_type"] = "gpu";
  }
  for (auto& pair : run.system["pairs"]) {
    pair["relation"] = "NV4";
    pair["nvlink_count"] = 4;
  }
  run.system["pairs"][2]["relation"] = "SYS";  // pair 0-3
  run.system["pairs"][2]["nvlink_count"] = 0;
  const Finding f = only(run);
  EXPECT_EQ(f.id, "nvlink-missing");
  EXPECT_EQ(f.gpus, (std::vector<int>{0, 3}));
  // Eight GPUs where only 16 of 28 pairs have NVLink (DGX-1 style): by design, not a fault.
  test::RunJson cube = nvswitch_run(8);
  int kept = 0;
  for (auto& pair : cube.system["pairs"]) {
    for (auto& gpu : cube.system["gpus"]) {
      for (auto& link : gpu["nvlinks"]) link["remote_type"] = "gpu";
    }
    if (kept++ < 16) continue;
    pair["relation"] = "SYS";
    pair["nvlink_count"] = 0;
  }
  EXPECT_EQ(ids(cube).count("nvlink-missing"), 0u);
}

TEST(RuleLinks, PcieWidthBelowMaximumIsDegraded) {
  test::RunJson run = nvswitch_run(2);
  run.system["gpus"][0]["pcie"]["current_width"] = 8;
  const Finding f = only(run);
  EXPECT_EQ(f.id, "pcie-link-degraded");
  EXPECT_EQ(f.gpus, std::vector<int>{0});
}

TEST(RuleLinks, IdlePcieGenerationDownshiftSharedByPeersIsNormal) {
  test::RunJson run = nvswitch_run(4);
  for (auto& gpu : run.system["gpus"]) gpu["pcie"]["current_gen"] = 1;  // all idle at Gen1
  EXPECT_TRUE(ids(run).empty());
  run.system["gpus"][1]["pcie"]["current_gen"] = 5;  // peers now differ: GPUs 0, 2, 3 run lower than GPU1? no:
  // the reference is what most identical peers show (Gen1), so GPU1 above it is fine and nothing is flagged.
  EXPECT_TRUE(ids(run).empty());
}

TEST(RuleLinks, PcieGenerationBelowPeersOrUnderLoadIsDegraded) {
  test::RunJson run = nvswitch_run(4);
  run.system["gpus"][2]["pcie"]["current_gen"] = 4;
  EXPECT_EQ(only(run).gpus, std::vector<int>{2});
  test::RunJson busy = nvswitch_run(2);
  for (auto& gpu : busy.system["gpus"]) {
    gpu["pcie"]["current_gen"] = 3;
    gpu["throttle_reasons"] = nlohmann::json::array();  // not idle
  }
  EXPECT_EQ(ids(busy), std::set<std::string>{"pcie-link-degraded"});
}

TEST(RuleLinks, PeerAccessOffOnNvlinkIsAnErrorAndOnAHostBridgeIsNothing) {
  test::RunJson run = nvswitch_run(2);
  run.system["pairs"][0]["cuda_peer_access"] = false;
  const Finding f = only(run);
  EXPECT_EQ(f.id, "p2p-unavailable");
  EXPECT_EQ(f.severity, Severity::kError);
  test::RunJson pcie = nvswitch_run(2);
  for (auto& gpu : pcie.system["gpus"]) gpu["nvlinks"] = nlohmann::json::array();
  pcie.system["pairs"][0]["relation"] = "PHB";
  pcie.system["pairs"][0]["nvlink_count"] = 0;
  pcie.system["pairs"][0]["cuda_peer_access"] = false;
  EXPECT_TRUE(ids(pcie).empty());
  pcie.system["pairs"][0]["relation"] = "PIX";
  EXPECT_EQ(only(pcie).severity, Severity::kWarning);
}

TEST(RuleLinks, OrderedPairsFromDiscoveryAreMergedAndARefusalInEitherDirectionCounts) {
  test::RunJson run = nvswitch_run(2);
  auto reverse = run.system["pairs"][0];
  reverse["a"] = 1;
  reverse["b"] = 0;
  reverse["nvml_p2p"]["write"] = "CNS";
  run.system["pairs"].push_back(reverse);
  run.system["pairs"].push_back({{"a", nullptr}, {"b", 0}, {"relation", "NV18"}});  // a hidden GPU's pair
  const Finding f = only(run);
  EXPECT_EQ(f.id, "p2p-unavailable");
  EXPECT_NE(f.evidence.front().find("write status CNS"), std::string::npos) << f.evidence.front();
}

}  // namespace
}  // namespace linkscope::diagnose
