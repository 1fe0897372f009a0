#include <gtest/gtest.h>

#include "cluster/cross_host.hpp"
#include "cluster/isolation_plan.hpp"
#include "model/cross_host.hpp"
#include "report/isolation_text.hpp"
#include "unit/isolation_test_runs.hpp"

namespace linkscope::cluster {
namespace {

using test::isolated_cross_host;

TEST(ClusterIsolationReport, TheRunsAndVerdictsSurviveTheRunDocument) {
  const model::CrossHost cross = isolated_cross_host();
  const nlohmann::json written = model::to_json(cross);
  const auto& isolation = written["isolation"];
  EXPECT_EQ(isolation["run_count"], cross.isolation->runs.size());
  EXPECT_EQ(isolation["collective_count"], cross.isolation->collectives());
  EXPECT_EQ(isolation["hosts"][5]["verdict"], "slow");
  EXPECT_EQ(isolation["hosts"][2]["verdict"], "hung");
  EXPECT_EQ(isolation["runs"][0]["groups"][0]["role"], "every-host");
  EXPECT_EQ(isolation["expected_from"], "--expect-gbps");
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
  EXPECT_NE(text.find("a group is slow below 36.0 GB/s busbw (40.0 GB/s expected, less 10%; expected from "
                      "--expect-gbps)"),
            std::string::npos)
      << text;
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
