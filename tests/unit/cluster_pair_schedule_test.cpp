#include <gtest/gtest.h>

#include <set>

#include "cluster/pair_schedule.hpp"

namespace linkscope::cluster {
namespace {

void expect_every_pair_once(const std::vector<std::vector<HostPair>>& rounds, int hosts) {
  std::set<HostPair> seen;
  for (const auto& round : rounds) {
    std::set<int> busy;
    for (const auto& [a, b] : round) {
      EXPECT_LT(a, b);
      EXPECT_GE(a, 0);
      EXPECT_LT(b, hosts);
      EXPECT_TRUE(busy.insert(a).second) << "host " << a << " twice in one round";
      EXPECT_TRUE(busy.insert(b).second) << "host " << b << " twice in one round";
      EXPECT_TRUE(seen.insert({a, b}).second) << a << "-" << b << " measured twice";
    }
  }
  EXPECT_EQ(seen.size(), static_cast<std::size_t>(hosts * (hosts - 1) / 2));
}

TEST(ClusterPairSchedule, RoundsCoverEveryPairOnceWithoutSharingAHost) {
  for (int hosts = 2; hosts <= 17; ++hosts) {
    const auto rounds = pair_rounds(hosts);
    EXPECT_EQ(rounds.size(), static_cast<std::size_t>(hosts % 2 == 0 ? hosts - 1 : hosts)) << hosts;
    expect_every_pair_once(rounds, hosts);
    for (const auto& round : rounds) EXPECT_EQ(round.size(), static_cast<std::size_t>(hosts / 2)) << hosts;
  }
}

TEST(ClusterPairSchedule, SerialIsOnePairPerRound) {
  const auto rounds = serial_rounds(4);
  ASSERT_EQ(rounds.size(), 6u);
  for (const auto& round : rounds) EXPECT_EQ(round.size(), 1u);
  expect_every_pair_once(rounds, 4);
  EXPECT_TRUE(pair_rounds(1).empty());
  EXPECT_TRUE(serial_rounds(1).empty());
}

}  // namespace
}  // namespace linkscope::cluster
