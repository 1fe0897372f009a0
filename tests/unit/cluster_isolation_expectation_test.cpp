// What `cluster --isolate` judges its groups against when no --expect-gbps is given: the fleet baseline's numbers of
// the machine type (the same outside floor as `--baseline` judges with), else the NICs' rate.
#include <gtest/gtest.h>

#include "cluster/cross_host.hpp"
#include "cluster/host_comparison.hpp"
#include "cluster/isolation_expectation.hpp"
#include "diagnose/expectations.hpp"
#include "fleet/baseline.hpp"
#include "fleet/fleet_judge.hpp"
#include "fleet/machine_type.hpp"
#include "model/run_file.hpp"
#include "unit/cluster_test_hosts.hpp"
#include "unit/isolation_test_runs.hpp"

namespace linkscope::cluster {
namespace {

constexpr std::uint64_t kBytes = 16ull << 20;

// A saved `cluster --isolate` run of good hosts whose every-host all_reduce reached `gbps` (the h200x2 facts).
model::Run isolate_run(const std::string& host, double gbps) {
  model::Run run = model::read_run_file(test::fixture("runs/h200x2-healthy.json"));
  run.config.host = host;
  run.measurements.cross_host = test::isolated_cross_host(-1, -1, gbps);
  return run;
}

fleet::Baseline isolate_fleet() {
  std::vector<std::pair<std::string, model::Run>> runs;
  const double gbps[] = {49, 50, 50, 51, 50.5, 49.5, 50, 50};
  for (int i = 0; i < 8; ++i) runs.emplace_back("n.json", isolate_run("node-" + std::to_string(i), gbps[i]));
  return fleet::build_baseline(runs);
}

const fleet::BaselineMetric* group_metric(const fleet::Baseline& baseline, const std::string& type) {
  const auto& metrics = baseline.types.at(type).metrics;
  const auto found = metrics.find(fleet::metric_key("cross-host", fleet::host_group_all_reduce_metric(kBytes)));
  return found == metrics.end() ? nullptr : &found->second;
}

TEST(IsolationExpectation, TheBaselinePoolsEveryGroupsBusbwOfItsMachineType) {
  const fleet::Baseline baseline = isolate_fleet();
  const std::string type = fleet::machine_type(isolate_run("x", 50));
  const auto* metric = group_metric(baseline, type);
  ASSERT_NE(metric, nullptr);
  EXPECT_EQ(metric->spread.count, 8);  // one group (every host) per run: nothing was slow
  EXPECT_DOUBLE_EQ(metric->spread.median, 50);
  EXPECT_DOUBLE_EQ(metric->spread.mad, 0.25);
}

// The floor the groups are judged by is the fleet judgement's own: just above it a group is within the fleet, just
// below it outside.
TEST(IsolationExpectation, FromTheBaselineTheFloorIsTheFleetJudgementsOwn) {
  const fleet::Baseline baseline = isolate_fleet();
  const std::string type = fleet::machine_type(isolate_run("x", 50));
  std::string why;
  const auto expectation = baseline_expectation(baseline, "fleet.json", type, kBytes, why);
  ASSERT_TRUE(expectation) << why;
  EXPECT_DOUBLE_EQ(expectation->gbps, 50);
  const double floor = expectation->gbps * (1 - expectation->shortfall);
  // Both thresholds: 10% below (45) and robust z 3.5 (50 - 3.5 x 1.4826 x 0.25 = 48.70); outside only beyond both.
  EXPECT_NEAR(floor, 45.0, 1e-9);
  EXPECT_NE(expectation->from.find("baseline fleet.json: all_reduce one GPU per host at 16 MiB of " + type),
            std::string::npos)
      << expectation->from;
  for (const double delta : {0.05, -0.05}) {
    const model::FleetComparison judged =
        fleet::judge_against_baseline(isolate_run("y", floor + delta), baseline, "fleet.json");
    int groups = 0;
    for (const auto& m : judged.metrics) {
      if (m.category != "cross-host") continue;
      ++groups;
      EXPECT_EQ(m.outside, delta < 0) << m.value << " against floor " << floor;
    }
    EXPECT_EQ(groups, 1);
  }
}

TEST(IsolationExpectation, OutsideFloorIsTheLowerOfTheTwoThresholds) {
  // Wide spread: the z floor (100 - 3.5 x 1.4826 x 4 = 79.2) is below the relative one (90).
  EXPECT_NEAR(fleet::outside_floor({100, 4, 90, 110, 9}, 0.10, 3.5), 100 - 3.5 * 1.4826 * 4, 1e-9);
  // Narrow spread: the relative floor is the lower.
  EXPECT_NEAR(fleet::outside_floor({100, 0.5, 99, 101, 9}, 0.10, 3.5), 90, 1e-9);
  // No spread at all: relative alone, as robust_z has nothing to measure against.
  EXPECT_NEAR(fleet::outside_floor({100, 0, 100, 100, 9}, 0.10, 3.5), 90, 1e-9);
}

TEST(IsolationExpectation, TheHostPairsStandInAndAMissingTypeOrSizeIsSaid) {
  fleet::Baseline baseline;
  fleet::BaselineMetric pairs;
  pairs.category = "cross-host";
  pairs.metric = fleet::host_pair_metric(kBytes);
  pairs.spread = {24, 0, 24, 24, 3};
  baseline.types["T"].metrics[fleet::metric_key(pairs.category, pairs.metric)] = pairs;
  std::string why;
  const auto from_pairs = baseline_expectation(baseline, "b.json", "T", kBytes, why);
  ASSERT_TRUE(from_pairs);
  EXPECT_DOUBLE_EQ(from_pairs->gbps, 24);
  EXPECT_NE(from_pairs->from.find("sendrecv host pair at 16 MiB"), std::string::npos) << from_pairs->from;

  EXPECT_FALSE(baseline_expectation(baseline, "b.json", "T", 2 * kBytes, why));
  EXPECT_NE(why.find("no cross-host numbers at 32 MiB for T"), std::string::npos) << why;
  EXPECT_FALSE(baseline_expectation(baseline, "b.json", "U", kBytes, why));
  EXPECT_NE(why.find("has no hosts of this machine type (U)"), std::string::npos) << why;
}

TEST(IsolationExpectation, TheNicsRateIsTheSlowestMeasuringHostsClosestNic) {
  model::System fast = test::h200x2_system(), slow = test::h200x2_system();
  fast.nics = {test::infiniband_hca("mlx5_0", 400)};
  slow.nics = {test::infiniband_hca("mlx5_0", 200)};
  const HostsComparison hosts = compare_hosts({test::host_with("node-a", 0, fast), test::host_with("node-b", 1, slow),
                                               test::host_with("node-c", 2, test::h200x2_system())});
  std::vector<Representative> chosen(3);
  chosen[0].rank = 0;
  chosen[0].nic = "mlx5_0";
  chosen[1].rank = 1;
  chosen[1].nic = "mlx5_0";
  chosen[2].rank = -1;  // node-c drives no GPU: not measured, not judged
  std::string why;
  const auto expectation = nic_expectation(hosts, chosen, why);
  ASSERT_TRUE(expectation) << why;
  EXPECT_DOUBLE_EQ(expectation->gbps, 25);  // 200 Gb/s
  EXPECT_NEAR(expectation->shortfall, 1 - kNicRateShare, 1e-12);
  EXPECT_NE(expectation->from.find("NIC mlx5_0:1 200 Gb/s of node-b"), std::string::npos) << expectation->from;

  chosen[1].nic.clear();
  EXPECT_FALSE(nic_expectation(hosts, chosen, why));
  EXPECT_EQ(why, "no NIC is known near the measuring GPU of node-b");
  chosen[1].nic = "mlx5_9";
  EXPECT_FALSE(nic_expectation(hosts, chosen, why));
  EXPECT_EQ(why, "the rate of mlx5_9 on node-b is unknown");
}

}  // namespace
}  // namespace linkscope::cluster
