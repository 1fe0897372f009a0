#include <gtest/gtest.h>

#include <functional>

#include "cluster/cross_host.hpp"
#include "model/link_rate.hpp"
#include "unit/cluster_test_hosts.hpp"

namespace linkscope::cluster {
namespace {

using nlohmann::json;

model::CollectiveSeries sendrecv(double largest_gbps, const std::string& status = "ok") {
  model::CollectiveSeries series;
  series.op = coll::CollectiveOp::kSendRecv;
  series.nranks = 2;
  for (std::uint64_t bytes : {1ULL << 20, 1ULL << 28}) {
    model::CollectivePoint point;
    point.requested_bytes = point.bytes = bytes;
    point.status = bytes == (1ULL << 28) ? status : "ok";
    if (point.status == "ok") {
      point.time = model::TimeSummary{};
      point.busbw_gbps = point.algbw_gbps = bytes == (1ULL << 28) ? largest_gbps : largest_gbps / 4;
    } else {
      point.reason = "no progress for 60 s";
    }
    series.points.push_back(point);
  }
  return series;
}

model::CrossHost cluster_of(int hosts, const std::function<double(int, int)>& gbps) {
  model::CrossHost result;
  for (int h = 0; h < hosts; ++h) result.hosts.push_back("node-" + std::string(1, static_cast<char>('a' + h)));
  for (int a = 0; a < hosts; ++a) {
    for (int b = a + 1; b < hosts; ++b) {
      model::CrossHostPair pair;
      pair.a.host = a;
      pair.b.host = b;
      pair.a.nic = pair.b.nic = "mlx5_0:1";
      const double value = gbps(a, b);
      pair.series = value > 0 ? sendrecv(value) : sendrecv(1, "timeout");
      summarize_pair(pair);
      result.pairs.push_back(pair);
    }
  }
  return result;
}

TEST(ClusterCrossHost, PairSummaryTakesTheLargestSizeAndTheWorstStatus) {
  model::CrossHostPair pair;
  pair.series = sendrecv(48.2);
  summarize_pair(pair);
  EXPECT_EQ(pair.status, "ok");
  EXPECT_EQ(pair.bytes, 1ULL << 28);
  EXPECT_DOUBLE_EQ(*pair.bandwidth_gbps, 48.2);

  model::CrossHostPair failed;
  failed.series = sendrecv(48.2, "timeout");
  summarize_pair(failed);
  EXPECT_EQ(failed.status, "timeout");
  EXPECT_EQ(failed.reason, "no progress for 60 s");
  EXPECT_EQ(failed.bytes, 1ULL << 20);  // the largest size that was measured

  model::CrossHostPair never;
  never.reason = "NCCL initialisation failed";
  summarize_pair(never);
  EXPECT_EQ(never.status, "error");
  EXPECT_FALSE(never.bandwidth_gbps);
}

TEST(ClusterCrossHost, TheHostWhosePairsAreSlowIsNamed) {
  // node-c's pairs run at half speed.
  const auto result = cluster_of(4, [](int a, int b) { return a == 2 || b == 2 ? 24.0 : 48.0; });
  const auto slow = find_slow(result, nullptr);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].kind, "host");
  EXPECT_EQ(slow[0].host, 2);
  EXPECT_EQ(slow[0].nic, "mlx5_0:1");
  EXPECT_DOUBLE_EQ(*slow[0].measured_gbps, 24.0);
  EXPECT_DOUBLE_EQ(*slow[0].reference_gbps, 48.0);
  EXPECT_EQ(slow[0].evidence,
            "node-c: median 24.0 GB/s over its 3 pair(s) through mlx5_0:1 vs 48.0 GB/s over the 3 pair(s) without it "
            "(50% lower)");
}

TEST(ClusterCrossHost, EqualHostsAndSmallSpreadAreNotSlow) {
  EXPECT_TRUE(find_slow(cluster_of(4, [](int, int) { return 48.0; }), nullptr).empty());
  // 5% lower stays within the 10% allowance.
  EXPECT_TRUE(find_slow(cluster_of(4, [](int a, int b) { return a == 1 || b == 1 ? 45.6 : 48.0; }), nullptr).empty());
}

TEST(ClusterCrossHost, TwoHostsCannotBlameEither) {
  const auto result = cluster_of(2, [](int, int) { return 5.0; });
  EXPECT_TRUE(find_slow(result, nullptr).empty());
  const auto failed = cluster_of(2, [](int, int) { return 0.0; });
  EXPECT_TRUE(find_slow(failed, nullptr).empty());
}

TEST(ClusterCrossHost, AHostEveryPairOfWhichFailedIsNamed) {
  const auto result = cluster_of(3, [](int a, int b) { return a == 0 || b == 0 ? 0.0 : 48.0; });
  const auto slow = find_slow(result, nullptr);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].kind, "failed");
  EXPECT_EQ(slow[0].host, 0);
  EXPECT_EQ(slow[0].evidence, "every pair with node-a failed (2 of 2; first: timeout: no progress for 60 s)");
}

HostsComparison facts_with_nic_rate(int hosts, double rate_gbit) {
  std::vector<HostReport> reports;
  for (int h = 0; h < hosts; ++h) {
    model::System system;
    system.nics = {test::infiniband_hca("mlx5_0", rate_gbit)};
    reports.push_back(test::host_with("node-" + std::string(1, static_cast<char>('a' + h)), h, std::move(system)));
  }
  return compare_hosts(reports);
}

TEST(ClusterCrossHost, APairBelowItsNicRateIsNamedEvenWithTwoHosts) {
  const auto facts = facts_with_nic_rate(2, 400);
  const auto result = cluster_of(2, [](int, int) { return 20.0; });
  const auto slow = find_slow(result, &facts);
  ASSERT_EQ(slow.size(), 1u);
  EXPECT_EQ(slow[0].kind, "pair");
  EXPECT_DOUBLE_EQ(*slow[0].reference_gbps, 50.0);
  EXPECT_EQ(slow[0].evidence,
            "node-a <-> node-b: 20.0 GB/s per direction is 40% of the slower NIC's 50.0 GB/s (mlx5_0:1 of node-a); "
            "expected at least 70%");
  EXPECT_TRUE(find_slow(cluster_of(2, [](int, int) { return 47.0; }), &facts).empty());
}

TEST(ClusterCrossHost, NicRatesFromFacts) {
  // find_slow takes a NIC's rate from the host's facts (model::named_nic_rate): a port's Gbit/s, an interface's Mbit/s.
  model::System system;
  model::Nic hca = test::infiniband_hca("mlx5_0", 200);
  hca.ports.push_back({2, "ACTIVE", 400.0, "InfiniBand"});
  model::Nic eth;
  eth.name = "eth0";
  eth.kind = "ethernet";
  eth.speed_mbps = 100000;
  system.nics = {hca, eth};
  EXPECT_DOUBLE_EQ(model::named_nic_rate(system, "mlx5_0:2")->gbps, 50.0);
  EXPECT_DOUBLE_EQ(model::named_nic_rate(system, "mlx5_0:1")->gbps, 25.0);
  EXPECT_DOUBLE_EQ(model::named_nic_rate(system, "eth0")->gbps, 12.5);
  EXPECT_FALSE(model::named_nic_rate(system, "eth1"));
  EXPECT_FALSE(model::named_nic_rate(system, ""));
}

TEST(ClusterCrossHost, JsonHasASymmetricMatrix) {
  auto result = cluster_of(3, [](int a, int b) { return a == 0 && b == 2 ? 0.0 : 40.0 + a + b; });
  result.schedule = "rounds";
  result.sizes_bytes = {1ULL << 20, 1ULL << 28};
  result.slow = find_slow(result, nullptr);
  const json out = model::to_json(result);
  const json& matrix = out["matrix"];
  EXPECT_EQ(matrix["hosts"], json({"node-a", "node-b", "node-c"}));
  EXPECT_TRUE(matrix["bandwidth_gbps"][0][0].is_null());
  EXPECT_EQ(matrix["bandwidth_gbps"][0][1], 41.0);
  EXPECT_EQ(matrix["bandwidth_gbps"][1][0], 41.0);
  EXPECT_EQ(matrix["bandwidth_gbps"][1][2], 43.0);
  EXPECT_EQ(matrix["status"][0][2], "timeout");
  EXPECT_EQ(matrix["status"][2][0], "timeout");
  EXPECT_EQ(matrix["status"][1][1], "self");
  EXPECT_EQ(out["pairs"].size(), 3u);
  EXPECT_EQ(out["pairs"][0]["a"]["host"], "node-a");
  EXPECT_EQ(out["pairs"][0]["series"]["op"], "sendrecv");
  EXPECT_EQ(out["all_reduce"]["status"], "not run");
}

}  // namespace
}  // namespace linkscope::cluster
