#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "cluster/random_peer_schedule.hpp"

namespace linkscope::cluster {
namespace {

TEST(ClusterRandomPeerSchedule, EveryHostMeetsItsPeersInDisjointRounds) {
  for (int hosts = 2; hosts <= 64; ++hosts) {
    for (int peers : {1, 3, 5}) {
      const auto rounds = random_peer_rounds(hosts, peers, 7);
      std::vector<std::set<int>> met(static_cast<std::size_t>(hosts));
      for (const auto& round : rounds) {
        std::set<int> busy;
        for (const auto& [a, b] : round) {
          EXPECT_LT(a, b);
          EXPECT_TRUE(busy.insert(a).second && busy.insert(b).second) << "a host twice in one round";
          met[static_cast<std::size_t>(a)].insert(b);
          met[static_cast<std::size_t>(b)].insert(a);
        }
      }
      const std::size_t wanted = static_cast<std::size_t>(std::min(peers, hosts - 1));
      for (const auto& m : met) EXPECT_GE(m.size(), wanted) << hosts << " hosts, " << peers << " peers";
      // Linear: a few rounds more than `peers` (repeats, the resting host of an odd count), never N-1.
      EXPECT_LE(static_cast<int>(rounds.size()), 2 * peers + 2) << hosts << " hosts, " << peers << " peers";
    }
  }
}

TEST(ClusterRandomPeerSchedule, TheSeedAloneDecides) {
  EXPECT_EQ(random_peer_rounds(64, 3, 42), random_peer_rounds(64, 3, 42));
  EXPECT_NE(random_peer_rounds(64, 3, 42), random_peer_rounds(64, 3, 43));
  EXPECT_TRUE(random_peer_rounds(1, 3, 42).empty());
  EXPECT_TRUE(random_peer_rounds(8, 0, 42).empty());
}

// Pairs run at the slower host's speed; a hung host's pairs fail.
std::vector<PairMeasurement> measure(const std::vector<std::vector<HostPair>>& rounds, int slow, int hung) {
  std::vector<PairMeasurement> measured;
  for (const auto& round : rounds) {
    for (const auto& pair : round) {
      const bool has_hung = pair.first == hung || pair.second == hung;
      const bool has_slow = pair.first == slow || pair.second == slow;
      measured.push_back({pair, has_hung ? std::nullopt : std::optional<double>(has_slow ? 12.0 : 48.0)});
    }
  }
  return measured;
}

TEST(ClusterRandomPeerSchedule, TheMedianNamesTheSlowAndTheHungHostOnly) {
  for (int slow : {0, 17, 63}) {
    const int hung = (slow + 31) % 64;
    const auto judgement = judge_by_peer_median(64, measure(random_peer_rounds(64, 3, 5), slow, hung), 0.1);
    ASSERT_TRUE(judgement.fleet_median_gbps);
    EXPECT_EQ(*judgement.fleet_median_gbps, 48.0);
    for (const auto& host : judgement.hosts) {
      EXPECT_EQ(host.slow, host.host == slow || host.host == hung) << "host " << host.host;
    }
    EXPECT_EQ(*judgement.hosts[static_cast<std::size_t>(slow)].median_gbps, 12.0);
    EXPECT_FALSE(judgement.hosts[static_cast<std::size_t>(hung)].median_gbps);
    EXPECT_GT(judgement.hosts[static_cast<std::size_t>(hung)].failed, 0);
  }
}

}  // namespace
}  // namespace linkscope::cluster
