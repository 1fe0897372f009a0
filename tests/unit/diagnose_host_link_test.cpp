// One GPU is a real machine: the host link (host-link-reaches-share, host-link-below-expected), the local copy
// against the GPU's memory (local-copy-reaches-memory-share, "fits in L2") and host latency, on one GPU and on every
// GPU of many; the memory rate from NVML's facts or the product table.
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "diagnose/diagnose.hpp"
#include "model/memory_rate.hpp"
#include "model/run_file.hpp"
#include "support/run_command.hpp"

namespace linkscope::diagnose {
namespace {

using nlohmann::json;
constexpr std::uint64_t kMiB = 1024ull * 1024ull;

json corpus_base(const std::string& name) {
  std::ifstream file(std::string(LINKSCOPE_SOURCE_DIR) + "/tests/corpus/bases/" + name);
  return json::parse(file);
}

model::Run diagnosed(const json& document) {
  model::Run run = model::run_from_json(document, "test run");
  diagnose_into(run, true);
  return run;
}

const Hypothesis& hypothesis(const model::Run& run, const std::string& id) {
  for (const auto& h : run.hypotheses) {
    if (h.id == id) return h;
  }
  throw std::runtime_error("no hypothesis " + id + " in " + model::to_json(run.hypotheses).dump(2));
}

const Finding* finding(const model::Run& run, const std::string& id) {
  for (const auto& f : run.findings) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const auto& line : lines) text += line + "\n";
  return text;
}

TEST(OneGpu, HealthyH200HasTwoConfirmedHypothesesAndNoWarning) {
  const model::Run run = diagnosed(corpus_base("h200-1gpu-pcie.json"));
  int confirmed = 0;
  for (const auto& h : run.hypotheses) confirmed += h.verdict == Verdict::kConfirmed;
  EXPECT_GE(confirmed, 2) << model::to_json(run.hypotheses).dump(2);
  for (const auto& f : run.findings) EXPECT_LT(f.severity, Severity::kWarning) << f.id << ": " << f.title;
  const auto& host = hypothesis(run, "host-link-reaches-share");
  EXPECT_EQ(host.verdict, Verdict::kConfirmed) << host.evidence;
  EXPECT_NE(host.evidence.find("GPU0 H2D CE 256 MiB: 55.4 GB/s = 88% of PCIe Gen5 x16 63.0 GB/s (predicted >= 50.9"),
            std::string::npos)
      << host.evidence;
  // Datasheet 4800 GB/s (NVML's bus width is not in this run): 1978.8 x 2 = 82% of it.
  const auto& local = hypothesis(run, "local-copy-reaches-memory-share");
  EXPECT_EQ(local.verdict, Verdict::kConfirmed) << local.evidence;
  EXPECT_NE(local.evidence.find("1978.8 GB/s at 1 GiB = 3957.6 GB/s read + write, 82% of 4800.0 GB/s"), std::string::npos)
      << local.evidence;
}

TEST(OneGpu, NvmlClockAndBusWidthGiveTheMemoryRate) {
  json document = corpus_base("h200-1gpu-pcie.json");
  document["system"]["gpus"][0]["memory_bus_width_bits"] = 6144;
  const model::Run run = diagnosed(document);
  const auto rate = model::memory_rate(run.system.gpus.at(0));
  ASSERT_TRUE(rate);
  EXPECT_NEAR(rate->gbps, 4916.7, 0.1);  // 2 x 3201 MHz x 6144 / 8 bytes
  EXPECT_EQ(rate->basis, "NVML 3201 MHz x 6144 bit, double data rate");
  EXPECT_EQ(hypothesis(run, "local-copy-reaches-memory-share").verdict, Verdict::kConfirmed);
  EXPECT_EQ(model::l2_cache_bytes(run.system.gpus.at(0)), 50 * 1024 * 1024) << "the product table's, without CUDA's";
  document["system"]["gpus"][0]["l2_cache_bytes"] = 60 * kMiB;
  EXPECT_EQ(model::l2_cache_bytes(diagnosed(document).system.gpus.at(0)), 60 * kMiB) << "CUDA's, when the run has it";

  model::Gpu unknown;
  unknown.name = "Some Future GPU";
  EXPECT_FALSE(model::memory_rate(unknown));
  unknown.name = "NVIDIA A100-SXM4-80GB";
  EXPECT_DOUBLE_EQ(model::memory_rate(unknown)->gbps, 2039);
  EXPECT_EQ(model::l2_cache_bytes(unknown), 40 * 1024 * 1024);
}

TEST(OneGpu, LocalCopiesThatFitInL2AreNotJudgedAgainstTheMemory) {
  json document = corpus_base("h200-1gpu-pcie.json");
  auto& points = document["measurements"]["p2p"]["points"];
  points[0]["bytes"] = 16 * kMiB;
  points[0]["bandwidth_gbps"]["median"] = 3000.0;  // faster than the memory: served from L2
  auto run = diagnosed(document);
  auto local = hypothesis(run, "local-copy-reaches-memory-share");
  EXPECT_EQ(local.verdict, Verdict::kInconclusive) << local.evidence;
  EXPECT_NE(local.evidence.find("16 MiB: fits in L2 (50 MiB)"), std::string::npos) << local.evidence;

  points.push_back(points[0]);
  points[1]["bytes"] = 1024 * kMiB;
  points[1]["bandwidth_gbps"]["median"] = 1500.0;  // 62% of 4800 read + write: below 0.80 x 0.95
  run = diagnosed(document);
  local = hypothesis(run, "local-copy-reaches-memory-share");
  EXPECT_EQ(local.verdict, Verdict::kRefuted) << local.evidence;
  EXPECT_NE(local.evidence.find("(sizes up to 16 MiB fit in L2, 50 MiB: not judged)"), std::string::npos) << local.evidence;
}

TEST(OneGpu, SlowHostLinkNamesMeasuredExpectedLinkNumaAndTheNextCommand) {
  json document = corpus_base("h200-1gpu-pcie.json");
  document["system"]["gpus"][0]["numa_node"] = 1;
  document["measurements"]["p2p"]["config"]["cpu_node"] = 0;
  document["measurements"]["p2p"]["host"][0]["bandwidth_gbps"]["median"] = 27.7;
  const model::Run run = diagnosed(document);
  const Finding* f = finding(run, "host-link-below-expected");
  ASSERT_NE(f, nullptr) << model::to_json(run.findings).dump(2);
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(f->gpus, std::vector<int>{0});
  EXPECT_EQ(joined(f->evidence),
            "GPU0 H2D CE 256 MiB: 27.7 GB/s = 44% of PCIe Gen5 x16 63.0 GB/s; expected about 85%, flagged below 50%; "
            "link PCIe Gen5 x16 now, max Gen5 x16; host buffer on NUMA node 0 (--cpu-node 0; GPU0 is on node 1)\n");
  EXPECT_EQ(f->next_command, "linkscope p2p -d 0 --measure host,latency --host-size 1G --cpu-node 1");
  EXPECT_NEAR(f->numbers["slow_copies"][0]["expected_gbps"].get<double>(), 0.85 * 63.015, 0.01);
  EXPECT_EQ(hypothesis(run, "host-link-reaches-share").verdict, Verdict::kRefuted);
}

TEST(OneGpu, HostLatencyIsJudgedWhenMeasuredAndSkippedWhenAbsent) {
  json document = corpus_base("h200-1gpu-pcie.json");
  EXPECT_EQ(hypothesis(diagnosed(document), "host-link-reaches-share").evidence.find("latency"), std::string::npos);
  // nvbandwidth's host_device_latency_sm on H200 PCIe Gen5: 1189.84 ns, within the limit.
  document["measurements"]["p2p"]["latency"].push_back(
      {{"src", -1}, {"dst", 0}, {"method", "sm_pointer_chase"}, {"latency_ns", {{"median", 1189.84}}}, {"status", "ok"}});
  auto run = diagnosed(document);
  EXPECT_EQ(finding(run, "host-link-below-expected"), nullptr);
  EXPECT_NE(hypothesis(run, "host-link-reaches-share").evidence.find("GPU0 host latency 1190 ns"), std::string::npos);
  document["measurements"]["p2p"]["latency"][0]["latency_ns"]["median"] = 4100.0;
  run = diagnosed(document);
  const Finding* f = finding(run, "host-link-below-expected");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(joined(f->evidence).find("GPU0 host latency 4100 ns (sm_pointer_chase), flagged above 2380 ns"),
            std::string::npos)
      << joined(f->evidence);
}

TEST(OneGpu, ABusyGpuIsLeftToNoisyMeasurement) {
  json document = corpus_base("h200-1gpu-pcie.json");
  document["measurements"]["p2p"]["host"][0]["bandwidth_gbps"]["median"] = 14.2;
  document["system"]["gpus"][0]["processes"] = {{{"pid", 519}, {"name", "python3"}}};
  const model::Run run = diagnosed(document);
  EXPECT_EQ(finding(run, "host-link-below-expected"), nullptr) << model::to_json(run.findings).dump(2);
  EXPECT_NE(finding(run, "noisy-measurement"), nullptr);
}

TEST(ManyGpus, EveryGpuGetsItsHostLinkCheckWithSmAndBothWays) {
  const model::Run run = diagnosed(model::to_json(model::read_run_file(test::fixture("runs/h200x2-healthy.json"))));
  const auto& host = hypothesis(run, "host-link-reaches-share");
  EXPECT_EQ(host.verdict, Verdict::kConfirmed) << host.evidence;
  for (const char* piece : {"GPU0 H2D CE 512 MiB: 55.2 GB/s", "GPU1 D2H SM 512 MiB: 52.5 GB/s",
                            "GPU1 H2D SM both ways 512 MiB: 42.3 GB/s", "GPU0 host latency 1190 ns"}) {
    EXPECT_NE(host.evidence.find(piece), std::string::npos) << piece << " in " << host.evidence;
  }
}

}  // namespace
}  // namespace linkscope::diagnose
