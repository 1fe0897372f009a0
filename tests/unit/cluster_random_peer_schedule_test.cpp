#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>

#include "cluster/cross_host.hpp"
#include "cluster/random_peer_schedule.hpp"
#include "unit/cluster_test_hosts.hpp"

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

// 64 hosts, 3 random peers each: the pairs as `cluster --schedule gpu-to-rack` records them, at the slower host's
// speed, a hung host's pairs timed out.
model::CrossHost measured_rounds(int slow, int hung) {
  model::CrossHost cross;
  for (int h = 0; h < 64; ++h) cross.hosts.push_back("node-" + std::to_string(h));
  cross.schedule = "gpu-to-rack";
  for (const auto& round : random_peer_rounds(64, 3, 5)) {
    for (const auto& [a, b] : round) {
      model::CrossHostPair pair;
      pair.a.host = a;
      pair.b.host = b;
      pair.series = test::measured_series(coll::CollectiveOp::kSendRecv, 2, a == slow || b == slow ? 12.0 : 48.0);
      if (a == hung || b == hung) {
        pair.series->points.front().status = "timeout";
        pair.series->points.front().busbw_gbps.reset();
      }
      summarize_pair(pair);
      cross.pairs.push_back(pair);
    }
  }
  return cross;
}

// The command's rule (find_slow: a host's pair median against the median of the pairs without it; a host whose every
// pair failed) names the slow and the hung host and no other, from three random peers each.
TEST(ClusterRandomPeerSchedule, ThePairMedianNamesTheSlowAndTheHungHostOnly) {
  for (int slow : {0, 17, 63}) {
    const int hung = (slow + 31) % 64;
    const auto culprits = find_slow(measured_rounds(slow, hung), nullptr);
    std::map<int, std::string> named;
    for (const auto& culprit : culprits) named[culprit.host] = culprit.kind;
    EXPECT_EQ(named, (std::map<int, std::string>{{slow, "host"}, {hung, "failed"}})) << "slow " << slow;
  }
}

}  // namespace
}  // namespace linkscope::cluster
