// A soak cycle's summary (report/soak_cycle): one host's bandwidths without the host label, a cluster's with it so
// that its pairs stay apart, and every host's link facts, RDMA ports included, named by host; a port that goes down
// between two cycles is a link flap.
#include <gtest/gtest.h>

#include <algorithm>

#include "diagnose/diagnose.hpp"
#include "model/run_file.hpp"
#include "report/soak_cycle.hpp"
#include "unit/cluster_test_runs.hpp"

namespace linkscope::report {
namespace {

// The cluster run with node-c's facts carrying one InfiniBand port in `state`.
model::Run cluster_with_port(const std::string& state) {
  model::Run run = test::cluster_run();
  for (auto& host : run.system.hosts) {
    if (host.name != "node-c") continue;
    auto facts = std::make_shared<model::System>(*host.system);
    facts->nics = {test::infiniband_hca("mlx5_0", 400, state)};
    host.system = facts;
  }
  return run;
}

TEST(SoakCycle, AClustersPairsKeepTheirHostsAndItsStatesNameEachHost) {
  const model::Run run = cluster_with_port("ACTIVE");
  const model::SoakCycle cycle = summarize_soak_cycle(run, 2, 10, 4.5);
  EXPECT_EQ(cycle.index, 2);
  EXPECT_EQ(cycle.start_s, 10);
  EXPECT_EQ(cycle.seconds, 4.5);
  int pairs = 0;
  for (const auto& [key, value] : cycle.metrics) {
    if (key.rfind("linkscope_cross_host_bandwidth_bytes_per_second{", 0) != 0) continue;
    ++pairs;
    EXPECT_NE(key.find("host=\"node-"), std::string::npos) << key;
  }
  EXPECT_EQ(pairs, 3);  // one series per pair: none overwrote another
  EXPECT_EQ(cycle.metrics.at("linkscope_cross_host_bandwidth_bytes_per_second{host=\"node-a\",peer=\"node-c\",size=\"" +
                             std::to_string(256ull << 20) + "\"}"),
            23.5e9);
  EXPECT_EQ(cycle.states.at("node-c mlx5_0:1 state"), "ACTIVE");
  EXPECT_EQ(cycle.states.at("node-c mlx5_0:1 rate"), "400 Gb/s");
  EXPECT_TRUE(cycle.states.count("node-b GPU0 PCIe width")) << "GPU links by host";
  EXPECT_TRUE(std::find(cycle.findings.begin(), cycle.findings.end(), "cross-host-slow") != cycle.findings.end());
}

TEST(SoakCycle, OneHostsMetricsLeaveTheHostLabelOutAndItsNvlinkCountersAreKept) {
  model::Run run = model::read_run_file(test::fixture("runs/h200x2-healthy.json"));
  const model::SoakCycle cycle = summarize_soak_cycle(run, 0, 0, 1);
  ASSERT_FALSE(cycle.metrics.empty());
  for (const auto& [key, value] : cycle.metrics) EXPECT_EQ(key.find("host="), std::string::npos) << key;
  EXPECT_TRUE(cycle.states.count("GPU0 PCIe width"));
  // Every NVLink error counter NVML reported, under the GPU and link it belongs to.
  std::size_t expected = 0;
  for (const auto& gpu : run.system.gpus) {
    for (const auto& link : gpu.nvlink_list()) {
      expected += link.errors.replay.has_value() + link.errors.recovery.has_value() + link.errors.crc_flit.has_value();
    }
  }
  ASSERT_GT(expected, 0u) << "the h200x2 run has NVLink error counters";
  EXPECT_EQ(cycle.counters.size(), expected);
  EXPECT_TRUE(cycle.counters.count("GPU1 NVLink 17 CRC flit errors")) << cycle.counters.begin()->first;
}

TEST(SoakCycle, APortThatGoesDownBetweenCyclesIsALinkFlap) {
  model::Soak soak;
  soak.requested_s = 60;
  soak.cycles.push_back(summarize_soak_cycle(cluster_with_port("ACTIVE"), 0, 0, 5));
  model::Run run = cluster_with_port("DOWN");
  soak.cycles.push_back(summarize_soak_cycle(run, 1, 5, 5));
  run.measurements.soak = soak;
  diagnose::diagnose_into(run);
  const auto flap = std::find_if(run.findings.begin(), run.findings.end(),
                                 [](const model::Finding& f) { return f.id == "link-flap"; });
  ASSERT_NE(flap, run.findings.end());
  EXPECT_EQ(flap->severity, model::Severity::kError);
  EXPECT_EQ(flap->evidence, std::vector<std::string>{"node-c mlx5_0:1 state: ACTIVE -> DOWN at cycle 1"});
}

TEST(SoakCycle, TheDurationIsReachedWhenAnotherCycleWouldEndAfterIt) {
  model::Soak soak;
  soak.requested_s = 20;
  EXPECT_EQ(soak_duration_reached(soak, 0), "");
  soak.cycles.push_back({0, 0, 6, {}, {}, {}});
  EXPECT_EQ(soak_duration_reached(soak, 14), "");  // 14 + 6 = 20: one more fits
  EXPECT_EQ(soak_duration_reached(soak, 14.7),
            "duration reached: 1 cycles in 15 s (the next would end after 20 s)");
}

}  // namespace
}  // namespace linkscope::report
