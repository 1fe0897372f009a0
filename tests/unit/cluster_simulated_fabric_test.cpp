#include <gtest/gtest.h>

#include "cluster/simulated_fabric.hpp"
#include "core/error.hpp"

namespace linkscope::cluster {
namespace {

const char* const kFabric = R"({
  "default": {"send_gbps": 40, "recv_gbps": 50, "latency_us": 5},
  "slow_factor": 0.5,
  "hosts": [
    {"name": "node-b", "slow": true},
    {"rank": 5, "hung": true},
    {"name": "node-d", "gbps": 20, "latency_us": 30}
  ]
})";

FabricMember member(const std::string& name, std::vector<int> ranks) { return {name, std::move(ranks)}; }

TEST(ClusterSimulatedFabric, HostsByNameOrRankOverTheDefault) {
  const auto fabric = SimulatedFabric::parse(kFabric, "fabric.json");
  const auto plain = fabric.host(member("node-a", {0, 1}));
  EXPECT_EQ(plain.send_gbps, 40);
  EXPECT_EQ(plain.recv_gbps, 50);
  EXPECT_FALSE(plain.slow || plain.hung);
  EXPECT_TRUE(fabric.host(member("node-b", {2})).slow);
  EXPECT_TRUE(fabric.host(member("node-c", {4, 5})).hung);
  const auto d = fabric.host(member("node-d", {6}));
  EXPECT_EQ(d.send_gbps, 20);
  EXPECT_EQ(d.recv_gbps, 20);
  EXPECT_EQ(d.latency_us, 30);
}

TEST(ClusterSimulatedFabric, TheSlowestMemberSetsTheBusBandwidth) {
  const auto fabric = SimulatedFabric::parse(kFabric, "fabric.json");
  const std::uint64_t bytes = 1ull << 30;
  const auto busbw = [&](const std::vector<FabricMember>& members) {
    const auto outcome = fabric.collective(coll::CollectiveOp::kAllReduce, members, bytes);
    EXPECT_FALSE(outcome.hung);
    const double n = static_cast<double>(members.size());
    return static_cast<double>(bytes) / (outcome.time_us * 1e3) * 2 * (n - 1) / n;
  };
  // 40 GB/s send is the bottleneck of good hosts; node-b is slow (x0.5); latency is small beside 1 GiB.
  EXPECT_NEAR(busbw({member("node-a", {0}), member("node-e", {7})}), 40, 0.1);
  EXPECT_NEAR(busbw({member("node-a", {0}), member("node-b", {2}), member("node-e", {7})}), 20, 0.1);
  const auto small = fabric.collective(coll::CollectiveOp::kSendRecv, {member("node-a", {0}), member("node-d", {6})}, 0);
  EXPECT_EQ(small.time_us, 30);  // the slowest member's latency
  const auto hung = fabric.collective(coll::CollectiveOp::kAllReduce, {member("node-a", {0}), member("node-c", {5})}, 8);
  EXPECT_TRUE(hung.hung);
  EXPECT_EQ(hung.hung_hosts, std::vector<std::string>{"node-c"});
}

TEST(ClusterSimulatedFabric, ABadFileNamesTheField) {
  const auto error_of = [](const std::string& text) {
    try {
      SimulatedFabric::parse(text, "f.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of(R"({"hosts": [{"name": "a", "slwo": true}]})").find("slwo"), std::string::npos);
  EXPECT_NE(error_of(R"({"hosts": [{"name": "a", "rank": 1}]})").find("one of them"), std::string::npos);
  EXPECT_NE(error_of(R"({"default": {"gbps": 0}})").find("must be positive"), std::string::npos);
  EXPECT_NE(error_of(R"({"slow_factor": 2})").find("slow_factor"), std::string::npos);
  EXPECT_NE(error_of("{").find("not JSON"), std::string::npos);
  EXPECT_NE(error_of(R"({"hots": []})").find("hots"), std::string::npos);
  EXPECT_NE(error_of(R"({"hosts": [{"rank": 1, "slow_from": -2}]})").find("slow_from"), std::string::npos);
}

// slow_from: a host that degrades during a soak turns slow at its Nth collective, judged by its own count, which
// every member of the collective was told.
TEST(ClusterSimulatedFabric, AHostTurnsSlowFromItsNthCollective) {
  const auto fabric =
      SimulatedFabric::parse(R"({"default": {"gbps": 40}, "slow_factor": 0.5, "hosts": [{"rank": 1, "slow_from": 3}]})",
                             "fabric.json");
  const std::uint64_t bytes = 1ull << 30;
  const std::vector<FabricMember> pair = {member("node-a", {0}), member("node-b", {1})};
  const auto gbps = [&](std::vector<long long> counts) {
    const auto outcome = fabric.collective(coll::CollectiveOp::kSendRecv, pair, bytes, counts);
    return static_cast<double>(bytes) / (outcome.time_us * 1e3);
  };
  EXPECT_NEAR(gbps({}), 40, 0.1);  // no counts: the first collective of each
  EXPECT_NEAR(gbps({7, 2}), 40, 0.1);
  EXPECT_NEAR(gbps({1, 3}), 20, 0.1);
  EXPECT_NEAR(gbps({9, 12}), 20, 0.1);
  EXPECT_EQ(fabric.host(member("node-b", {1})).slow_from, 3);
  EXPECT_FALSE(fabric.host(member("node-b", {1})).slow);
}

}  // namespace
}  // namespace linkscope::cluster
