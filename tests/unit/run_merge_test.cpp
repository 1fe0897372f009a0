#include "core/run_merge.hpp"

#include <gtest/gtest.h>

namespace linkscope {
namespace {

TEST(RunMerge, AppendsCollectivesAndRuntimeRunsFromEveryChild) {
  RunDocument run;
  RunDocument first, second;
  first.measurements["collectives"] = {{{"op", "all_reduce"}}};
  first.runtime = {{"nccl_version", "2.28.3"}, {"runs", {{{"context", "coll all_reduce"}}}}};
  second.measurements["collectives"] = {{{"op", "sendrecv"}}};
  second.runtime = {{"nccl_version", "2.28.9"}, {"runs", {{{"context", "coll sendrecv"}}}}};
  merge_child_run(run, first, "coll all_reduce");
  merge_child_run(run, second, "coll sendrecv");
  ASSERT_EQ(run.measurements["collectives"].size(), 2u);
  EXPECT_EQ(run.measurements["collectives"][1]["op"], "sendrecv");
  EXPECT_EQ(run.runtime["runs"].size(), 2u);
  EXPECT_EQ(run.runtime["nccl_version"], "2.28.3");
}

TEST(RunMerge, SecondP2pStepAddsItsPointsToTheFirst) {
  RunDocument run, sweep, bidir;
  sweep.measurements["p2p"] = {{"config", {{"methods", {"ce"}}}}, {"points", {{{"bytes", 1}}}}, {"latency", {{{"src", 0}}}}};
  bidir.measurements["p2p"] = {{"config", {{"bidirectional", true}}}, {"points", {{{"bytes", 2}, {"direction", "bidir"}}}}};
  merge_child_run(run, sweep, "p2p");
  merge_child_run(run, bidir, "p2p bidirectional");
  const auto& p2p = run.measurements["p2p"];
  ASSERT_EQ(p2p["points"].size(), 2u);
  EXPECT_EQ(p2p["points"][1]["direction"], "bidir");
  EXPECT_EQ(p2p["latency"].size(), 1u);
  EXPECT_EQ(p2p["config"]["methods"][0], "ce") << "the first step's config describes the sweep";
}

TEST(RunMerge, OtherSectionsAreTakenAndErrorsNameTheStep) {
  RunDocument run, patterns;
  patterns.measurements["patterns"] = nlohmann::json::array({{{"name", "ring"}}});
  patterns.measurements["numa_sweep"] = {{"nodes", {0}}};
  patterns.errors.push_back({{"where", "ring 0>1"}, {"message", "out of memory"}});
  merge_child_run(run, patterns, "patterns");
  EXPECT_EQ(run.measurements["patterns"][0]["name"], "ring");
  EXPECT_TRUE(run.measurements.contains("numa_sweep"));
  ASSERT_EQ(run.errors.size(), 1u);
  EXPECT_EQ(run.errors[0]["where"], "patterns: ring 0>1");
  EXPECT_EQ(run.errors[0]["message"], "out of memory");
}

}  // namespace
}  // namespace linkscope
