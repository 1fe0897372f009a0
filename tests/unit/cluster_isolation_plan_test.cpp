#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <set>

#include "cluster/isolation_plan.hpp"
#include "report/isolation_text.hpp"

namespace linkscope::cluster {
namespace {

int log2_ceil(int n) { return static_cast<int>(std::ceil(std::log2(static_cast<double>(n)))); }

// A fabric where a group is hung when it holds a hung host, slow when it holds a slow one, else ok. It also checks
// what the planner asks for: groups of two hosts or more that share no host within a run.
struct FakeFabric {
  int hosts = 0;
  std::set<int> slow, hung;

  std::vector<GroupOutcome> operator()(const std::vector<IsolationGroup>& run) const {
    std::set<int> busy;
    std::vector<GroupOutcome> outcomes;
    for (const auto& group : run) {
      EXPECT_GE(group.hosts.size(), 2u) << "a cross-host collective needs two hosts";
      GroupOutcome outcome = GroupOutcome::kOk;
      for (int host : group.hosts) {
        EXPECT_GE(host, 0);
        EXPECT_LT(host, hosts);
        EXPECT_TRUE(busy.insert(host).second) << "host " << host << " in two groups of one run";
        if (slow.count(host) && outcome == GroupOutcome::kOk) outcome = GroupOutcome::kSlow;
        if (hung.count(host)) outcome = GroupOutcome::kHung;
      }
      outcomes.push_back(outcome);
    }
    return outcomes;
  }
};

IsolationReport isolate(const FakeFabric& fabric) { return isolate_hosts(fabric.hosts, fabric); }

std::vector<int> as_vector(const std::set<int>& hosts) { return {hosts.begin(), hosts.end()}; }

void expect_exact(const IsolationReport& report, const FakeFabric& fabric, const std::string& where) {
  EXPECT_EQ(report.hosts_with(HostVerdict::kSlow), as_vector(fabric.slow)) << where;
  EXPECT_EQ(report.hosts_with(HostVerdict::kHung), as_vector(fabric.hung)) << where;
  EXPECT_TRUE(report.hosts_with(HostVerdict::kUnresolved).empty()) << where;
  EXPECT_EQ(report.hosts_with(HostVerdict::kGood).size(),
            static_cast<std::size_t>(fabric.hosts) - fabric.slow.size() - fabric.hung.size())
      << where;
}

TEST(ClusterIsolationPlan, OneSlowHostAtEveryPositionWithinTheBound) {
  for (int n = 3; n <= 64; ++n) {
    for (int bad = 0; bad < n; ++bad) {
      const FakeFabric fabric{n, {bad}, {}};
      const auto report = isolate(fabric);
      const std::string where = "N=" + std::to_string(n) + " slow host " + std::to_string(bad);
      expect_exact(report, fabric, where);
      // The bound; from four hosts on a good partner exists after the second run, so one run per halving.
      EXPECT_LE(static_cast<int>(report.runs.size()), log2_ceil(n) + 3) << where;
      if (n >= 4) {
        EXPECT_LE(static_cast<int>(report.runs.size()), log2_ceil(n) + 1) << where;
        EXPECT_LE(report.collectives(), 2 * log2_ceil(n) + 1) << where;
      } else {  // three hosts: no good partner after run 2 when its measured half is slow
        EXPECT_LE(report.runs.size(), 4u) << where;
        EXPECT_LE(report.collectives(), 5) << where;
      }
      const auto& named = report.per_host[static_cast<std::size_t>(bad)];
      ASSERT_GE(named.named_by.run, 0) << where;
      EXPECT_EQ(report.runs[static_cast<std::size_t>(named.named_by.run)]
                    .groups[static_cast<std::size_t>(named.named_by.group)]
                    .outcome,
                GroupOutcome::kSlow)
          << where;
    }
  }
}

TEST(ClusterIsolationPlan, TwoHostsCannotPinASlowPairOnEither) {
  const FakeFabric fabric{2, {1}, {}};
  const auto report = isolate(fabric);
  EXPECT_EQ(report.runs.size(), 1u);
  EXPECT_EQ(report.hosts_with(HostVerdict::kUnresolved), (std::vector<int>{0, 1}));
  ASSERT_FALSE(report.notes.empty());
  EXPECT_NE(report.notes.back().find("could not be told apart"), std::string::npos);
}

TEST(ClusterIsolationPlan, EveryHostGoodTakesOneRun) {
  for (int n : {2, 3, 16, 1000}) {
    const auto report = isolate({n, {}, {}});
    EXPECT_EQ(report.runs.size(), 1u) << n;
    EXPECT_EQ(report.collectives(), 1) << n;
    EXPECT_EQ(report.hosts_with(HostVerdict::kGood).size(), static_cast<std::size_t>(n)) << n;
    EXPECT_TRUE(report.notes.empty()) << n;
  }
}

TEST(ClusterIsolationPlan, OneHostRunsNothing) {
  const auto report = isolate({1, {}, {}});
  EXPECT_TRUE(report.runs.empty());
  EXPECT_EQ(report.hosts_with(HostVerdict::kUnresolved), (std::vector<int>{0}));
}

// k slow hosts at random positions (fixed seeds): every one named, O(k log N) collectives.
void check_k_slow(int k) {
  std::mt19937 random(20261206u + static_cast<unsigned>(k));
  for (int n : {8, 13, 16, 31, 64, 100, 257}) {
    for (int trial = 0; trial < 40; ++trial) {
      FakeFabric fabric{n, {}, {}};
      while (static_cast<int>(fabric.slow.size()) < k) {
        fabric.slow.insert(std::uniform_int_distribution<int>(0, n - 1)(random));
      }
      const auto report = isolate(fabric);
      const std::string where = "N=" + std::to_string(n) + " trial " + std::to_string(trial);
      expect_exact(report, fabric, where);
      EXPECT_LE(report.collectives(), 1 + 2 * k * log2_ceil(n)) << where;
      EXPECT_LE(static_cast<int>(report.runs.size()), log2_ceil(n) + 3) << where;
    }
  }
}

TEST(ClusterIsolationPlan, TwoSlowHosts) { check_k_slow(2); }
TEST(ClusterIsolationPlan, ThreeSlowHosts) { check_k_slow(3); }

TEST(ClusterIsolationPlan, AHungHostIsNamedHungBesideASlowOne) {
  for (int n : {4, 16, 37}) {
    const FakeFabric fabric{n, {1}, {n - 2}};
    const auto report = isolate(fabric);
    expect_exact(report, fabric, "N=" + std::to_string(n));
    const auto& hung = report.per_host[static_cast<std::size_t>(n - 2)];
    EXPECT_EQ(report.runs[static_cast<std::size_t>(hung.named_by.run)]
                  .groups[static_cast<std::size_t>(hung.named_by.group)]
                  .outcome,
              GroupOutcome::kHung);
  }
  const FakeFabric alone{64, {}, {17}};
  const auto report = isolate(alone);
  expect_exact(report, alone, "one hung host among 64");
  EXPECT_LE(static_cast<int>(report.runs.size()), log2_ceil(64) + 1);
}

TEST(ClusterIsolationPlan, EveryHostSlowEndsUnresolvedInBoundedRuns) {
  for (int n : {2, 3, 4, 16, 64}) {
    FakeFabric fabric{n, {}, {}};
    for (int h = 0; h < n; ++h) fabric.slow.insert(h);
    const auto report = isolate(fabric);
    EXPECT_EQ(report.hosts_with(HostVerdict::kUnresolved).size(), static_cast<std::size_t>(n)) << n;
    EXPECT_LE(static_cast<int>(report.runs.size()), log2_ceil(n) + 1 + kCrossRuns) << n;
  }
}

TEST(ClusterIsolationPlan, ThreeHostsNeedPairsAcrossGroupsBeforeAnyHostIsKnownGood) {
  // Run 2 measures hosts 0 and 1 (host 2 has no partner yet); both slow leaves host 2 untested and no good host.
  const FakeFabric fabric{3, {0}, {}};
  const auto report = isolate(fabric);
  expect_exact(report, fabric, "N=3");
  ASSERT_GE(report.runs.size(), 3u);
  EXPECT_EQ(report.runs[2].groups.front().role, GroupRole::kAcross);
}

TEST(ClusterIsolationPlan, ReasonNamesThePartnerAndEveryRun) {
  const FakeFabric fabric{4, {2}, {}};
  const auto report = isolate(fabric);
  const std::vector<std::string> names{"a", "b", "c", "d"};
  // Run 1: a-d slow; run 2: a,b ok and c,d slow; run 3: c beside a good host.
  const std::string reason = report::host_reason(report, 2, names);
  EXPECT_EQ(reason.rfind("slow: beside ", 0), 0u) << reason;
  EXPECT_NE(reason.find("(found good) in run 3: slow"), std::string::npos) << reason;
  EXPECT_NE(reason.find("runs 1 (slow, 4 hosts), 2 (slow, 2 hosts), 3 (slow, 2 hosts)"), std::string::npos) << reason;
  const std::string good = report::host_reason(report, 0, names);
  EXPECT_EQ(good.rfind("good; runs 1 (slow, 4 hosts), 2 (ok, 2 hosts)", 0), 0u) << good;
}

TEST(ClusterIsolationPlan, InconsistentOutcomesAreNoted) {
  IsolationPlanner planner(4);
  planner.record(std::vector<GroupOutcome>(planner.next_run().size(), GroupOutcome::kSlow));
  const auto halves = planner.next_run();
  ASSERT_EQ(halves.size(), 2u);
  planner.record({GroupOutcome::kOk, GroupOutcome::kOk});
  EXPECT_TRUE(planner.next_run().empty());
  ASSERT_FALSE(planner.report().notes.empty());
  EXPECT_NE(planner.report().notes.front().find("both halves of a slow group"), std::string::npos);
}

TEST(ClusterIsolationPlan, RecordRefusesTheWrongNumberOfOutcomes) {
  IsolationPlanner planner(4);
  planner.next_run();
  EXPECT_THROW(planner.record(std::vector<GroupOutcome>{}), std::exception);
}

}  // namespace
}  // namespace linkscope::cluster
