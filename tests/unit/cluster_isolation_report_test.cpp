#include <gtest/gtest.h>

#include "cluster/cross_host.hpp"
#include "cluster/isolation_plan.hpp"
#include "model/cross_host.hpp"
#include "report/isolation_text.hpp"

namespace linkscope::cluster {
namespace {

// 8 hosts, host 5 slow and host 2 hung, with the busbw an executor would record.
model::CrossHost isolated_cross_host() {
  IsolationPlanner planner(8);
  for (auto run = planner.next_run(); !run.empty(); run = planner.next_run()) {
    for (auto& group : run) {
      const auto has = [&](int host) { return std::find(group.hosts.begin(), group.hosts.end(), host) != group.hosts.end(); };
      group.outcome = has(2) ? GroupOutcome::kHung : has(5) ? GroupOutcome::kSlow : GroupOutcome::kOk;
      if (group.outcome != GroupOutcome::kHung) group.busbw_gbps = has(5) ? 12.5 : 49.9;
      if (group.outcome == GroupOutcome::kHung) group.reason = "simulated fabric: h2 marked hung";
    }
    planner.record(run);
  }
  model::CrossHost cross;
  cross.hosts = {"h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7"};
  cross.schedule = "isolate";
  cross.isolation = planner.report();
  cross.isolation->expected_gbps = 40;
  cross.isolation->shortfall = 0.1;
  cross.isolation->runner = "NCCL";
  return cross;
}

TEST(ClusterIsolationReport, TheRunsAndVerdictsSurviveTheRunDocument) {
  const model::CrossHost cross = isolated_cross_host();
  const nlohmann::json written = model::to_json(cross);
  const auto& isolation = written["isolation"];
  EXPECT_EQ(isolation["run_count"], cross.isolation->runs.size());
  EXPECT_EQ(isolation["collective_count"], cross.isolation->collectives());
  EXPECT_EQ(isolation["hosts"][5]["verdict"], "slow");
  EXPECT_EQ(isolation["hosts"][2]["verdict"], "hung");
  EXPECT_EQ(isolation["runs"][0]["groups"][0]["role"], "every-host");
  const model::CrossHost read = model::cross_host_from_json(model::JsonReader::root(written, "run.json"));
  ASSERT_TRUE(read.isolation);
  EXPECT_EQ(read.isolation->hosts_with(model::HostVerdict::kSlow), std::vector<int>{5});
  EXPECT_EQ(read.isolation->hosts_with(model::HostVerdict::kHung), std::vector<int>{2});
  EXPECT_EQ(model::to_json(read), written);
  EXPECT_TRUE(read.extra.empty()) << read.extra.dump();
}

TEST(ClusterIsolationReport, TextCountsTheRunsAndSaysWhyEachHostIsSuspected) {
  const model::CrossHost cross = isolated_cross_host();
  const std::string text = report::render_isolation_text(*cross.isolation, cross.hosts);
  EXPECT_NE(text.find("Isolation (cluster --isolate): " + std::to_string(cross.isolation->runs.size()) + " run(s), " +
                      std::to_string(cross.isolation->collectives()) + " collective(s)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("a group is slow below 36.0 GB/s busbw (40.0 GB/s expected, less 10%)"), std::string::npos) << text;
  EXPECT_NE(text.find("  run 1: [8 hosts, h0 .. h7] hung\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  h2: hung: "), std::string::npos) << text;
  EXPECT_NE(text.find("  h5: slow: "), std::string::npos) << text;
  EXPECT_LT(text.find("  h2: hung: "), text.find("  h5: slow: ")) << "hung hosts first";
}

TEST(ClusterIsolationReport, AHungGroupIsATimeout) {
  model::CrossHost cross = isolated_cross_host();
  EXPECT_EQ(cross_host_exit_code(cross), 4);
  for (auto& run : cross.isolation->runs) {
    for (auto& group : run.groups) {
      if (group.outcome == GroupOutcome::kHung) group.outcome = GroupOutcome::kSlow;
    }
  }
  EXPECT_EQ(cross_host_exit_code(cross), 0);
}

}  // namespace
}  // namespace linkscope::cluster
