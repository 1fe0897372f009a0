#include <gtest/gtest.h>

#include "cluster/host_identity.hpp"
#include "cluster/roster.hpp"
#include "core/error.hpp"

namespace linkscope::cluster {
namespace {

RankHello hello(int rank, const std::string& host, std::vector<std::string> arguments = {"topo"}) {
  RankHello h;
  h.rank = rank;
  h.host = {host, host, "hostname"};
  h.version = "0.1.0";
  h.git = "v0.1.0-5-gabc";
  h.arguments = std::move(arguments);
  return h;
}

TEST(ClusterIdentity, TheMachinesOwnNameByDefault) {
  const auto identity = resolve_host_identity(Environment::from_map({}), "vm", 3);
  EXPECT_EQ(identity.name, "vm");
  EXPECT_EQ(identity.source, "hostname");
  EXPECT_FALSE(identity.renamed());
}

TEST(ClusterIdentity, ExplicitNameAndPerRankSuffixAreRecorded) {
  const auto named = resolve_host_identity(Environment::from_map({{"LINKSCOPE_HOST_NAME", "node-a"}}), "vm", 1);
  EXPECT_EQ(named.name, "node-a");
  EXPECT_EQ(named.hostname, "vm");
  EXPECT_EQ(named.source, "LINKSCOPE_HOST_NAME");
  const auto per_rank = resolve_host_identity(Environment::from_map({{"LINKSCOPE_HOST_PER_RANK", "1"}}), "vm", 1);
  EXPECT_EQ(per_rank.name, "vm-rank1");
  EXPECT_EQ(per_rank.source, "hostname + LINKSCOPE_HOST_PER_RANK");
  EXPECT_TRUE(per_rank.renamed());
  const auto both = resolve_host_identity(
      Environment::from_map({{"LINKSCOPE_HOST_NAME", "gpu"}, {"LINKSCOPE_HOST_PER_RANK", "1"}}), "vm", 0);
  EXPECT_EQ(both.name, "gpu-rank0");
  EXPECT_EQ(resolve_host_identity(Environment::from_map({{"LINKSCOPE_HOST_PER_RANK", "0"}}), "vm", 2).name, "vm");
}

TEST(ClusterIdentity, BadValuesAreUsageErrorsNamingTheVariable) {
  try {
    resolve_host_identity(Environment::from_map({{"LINKSCOPE_HOST_NAME", "two words"}}), "vm", 0);
    FAIL() << "expected a usage error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("LINKSCOPE_HOST_NAME='two words'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(resolve_host_identity(Environment::from_map({{"LINKSCOPE_HOST_PER_RANK", "yes"}}), "vm", 0), UsageError);
  EXPECT_THROW(resolve_host_identity(Environment::from_map({{"LINKSCOPE_HOST_NAME", std::string(65, 'a')}}), "vm", 0),
               UsageError);
}

TEST(ClusterRoster, RanksGroupedByHostWithTheLowestRankLeading) {
  const Roster roster = make_roster({hello(0, "a"), hello(1, "b"), hello(2, "a"), hello(3, "b"), hello(4, "c")});
  EXPECT_TRUE(roster.refusal.empty()) << roster.refusal;
  ASSERT_EQ(roster.hosts.size(), 3u);
  EXPECT_EQ(roster.hosts[0].name, "a");
  EXPECT_EQ(roster.hosts[0].ranks, (std::vector<int>{0, 2}));
  EXPECT_EQ(roster.hosts[1].leader, 1);
  EXPECT_EQ(roster.leaders(), (std::vector<int>{0, 1, 4}));
  EXPECT_TRUE(roster.leads(1));
  EXPECT_FALSE(roster.leads(3));
  EXPECT_EQ(roster.host_of(3).name, "b");
  EXPECT_EQ(roster.rank_label(4), "rank 4 (c)");
  EXPECT_FALSE(roster.renamed());
}

TEST(ClusterRoster, RankLists) {
  EXPECT_EQ(rank_list({3}), "rank 3");
  EXPECT_EQ(rank_list({0, 1, 2, 3}), "ranks 0-3");
  EXPECT_EQ(rank_list({8, 0, 1, 2, 3, 5}), "ranks 0-3, 5, 8");
  EXPECT_EQ(rank_list({}), "no rank");
}

TEST(ClusterRoster, DifferentBuildsAreRefusedNamingTheHosts) {
  auto odd = hello(2, "c");
  odd.git = "v0.1.0-9-gdef";
  const Roster roster = make_roster({hello(0, "a"), hello(1, "a"), odd});
  EXPECT_EQ(roster.refusal_exit_code, 2);
  EXPECT_EQ(roster.refusal,
            "the ranks run different linkscope builds: linkscope 0.1.0 (v0.1.0-5-gabc) on a (ranks 0-1); "
            "linkscope 0.1.0 (v0.1.0-9-gdef) on c (rank 2); install one build on every host");
}

TEST(ClusterRoster, DifferentArgumentsAreRefusedNamingTheHosts) {
  const Roster roster =
      make_roster({hello(0, "a", {"cluster", "-b", "1M"}), hello(1, "b", {"cluster", "-b", "2M"}), hello(2, "c", {"cluster", "-b", "1M"})});
  EXPECT_EQ(roster.refusal_exit_code, 2);
  EXPECT_EQ(roster.refusal,
            "the ranks were started with different arguments: `cluster -b 1M` on a (rank 0), c (rank 2); "
            "`cluster -b 2M` on b (rank 1); give every rank the same command line");
}

TEST(ClusterRoster, ARankThatFailedToStartIsReportedWithItsExitCode) {
  auto broken = hello(1, "b");
  broken.error = "LINKSCOPE_HOST_PER_RANK='yes' must be 0 or 1";
  broken.error_exit_code = 2;
  const Roster roster = make_roster({hello(0, "a"), broken});
  EXPECT_EQ(roster.refusal, "rank 1 on b: LINKSCOPE_HOST_PER_RANK='yes' must be 0 or 1");
  EXPECT_EQ(roster.refusal_exit_code, 2);
}

TEST(ClusterRoster, OneNameOnTwoMachinesIsRefused) {
  auto a = hello(0, "node");
  a.host = {"node", "machine-1", "LINKSCOPE_HOST_NAME"};
  auto b = hello(1, "node");
  b.host = {"node", "machine-2", "LINKSCOPE_HOST_NAME"};
  const Roster roster = make_roster({a, b});
  EXPECT_NE(roster.refusal.find("host name node (LINKSCOPE_HOST_NAME) is claimed by ranks on different machines "
                                "(machine-1, machine-2)"),
            std::string::npos)
      << roster.refusal;
  EXPECT_TRUE(roster.renamed());
}

TEST(ClusterRoster, SurvivesJsonBetweenRanks) {
  auto second = hello(1, "b");
  second.cuda_device = 1;
  second.local_rank = 1;
  const Roster roster = make_roster({hello(0, "a"), second});
  const Roster back = roster_from_json(nlohmann::json::parse(roster_to_json(roster).dump()));
  EXPECT_EQ(back.world_size, 2);
  EXPECT_EQ(back.hosts.size(), 2u);
  EXPECT_EQ(back.host_of_rank, roster.host_of_rank);
  EXPECT_EQ(back.ranks[1].cuda_device, 1);
  EXPECT_EQ(back.ranks[1].local_rank, 1);
  EXPECT_EQ(back.ranks[0].arguments, (std::vector<std::string>{"topo"}));
  EXPECT_THROW(roster_from_json(nlohmann::json::object()), Error);
}

}  // namespace
}  // namespace linkscope::cluster
