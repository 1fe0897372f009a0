#include "plan/pattern_spec.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace linkscope::plan {
namespace {

TEST(PatternSpec, DisjointPairsOnEightGpusShareNoGpu) {
  const auto plan = make_preset("disjoint", first_devices(8));
  ASSERT_TRUE(plan.runnable);
  EXPECT_EQ(to_string(plan.spec.edges), "0>1,2>3,4>5,6>7");
  std::vector<int> seen;
  for (const auto& e : plan.spec.edges) {
    for (int id : {e.src, e.dst}) {
      EXPECT_EQ(std::count(seen.begin(), seen.end(), id), 0) << "GPU " << id << " used twice";
      seen.push_back(id);
    }
  }
  // An odd count leaves the last GPU out rather than sharing one.
  EXPECT_EQ(to_string(make_preset("disjoint", first_devices(5)).spec.edges), "0>1,2>3");
}

TEST(PatternSpec, RingFollowsDeviceOrderAndCloses) {
  EXPECT_EQ(to_string(make_preset("ring", first_devices(4)).spec.edges), "0>1,1>2,2>3,3>0");
  EXPECT_EQ(to_string(make_preset("ring", {2, 0, 3}).spec.edges), "2>0,0>3,3>2");
}

TEST(PatternSpec, FanInFanOutAllToAll) {
  EXPECT_EQ(to_string(make_preset("fan-in", first_devices(4)).spec.edges), "1>0,2>0,3>0");
  EXPECT_EQ(to_string(make_preset("fan-out", first_devices(4)).spec.edges), "0>1,0>2,0>3");
  EXPECT_EQ(make_preset("all-to-all", first_devices(4)).spec.edges.size(), 12u);
  EXPECT_EQ(to_string(make_preset("single", first_devices(8)).spec.edges), "0>1");
  EXPECT_EQ(to_string(make_preset("bidirectional", first_devices(2)).spec.edges), "0>1,1>0");
}

TEST(PatternSpec, PresetsNeedingMoreGpusAreSkippedWithTheReason) {
  const auto plans = make_presets("all", first_devices(2));
  ASSERT_EQ(plans.size(), pattern_preset_names().size());
  int runnable = 0;
  for (const auto& plan : plans) {
    if (plan.runnable) {
      ++runnable;
      continue;
    }
    EXPECT_NE(plan.skip_reason.find("2 present"), std::string::npos) << plan.name << ": " << plan.skip_reason;
    EXPECT_GT(plan.gpus_needed, 2);
  }
  EXPECT_EQ(runnable, 2);  // single and bidirectional
  const auto one = make_preset("single", first_devices(1));
  EXPECT_FALSE(one.runnable);
  EXPECT_NE(one.skip_reason.find("needs 2 GPUs"), std::string::npos);
}

TEST(PatternSpec, UnknownPresetAndBadEdges) {
  EXPECT_THROW(make_preset("mesh", first_devices(4)), UsageError);
  EXPECT_THROW(make_presets("ring,", first_devices(4)), UsageError);
  EXPECT_EQ(to_string(parse_edges_pattern("0>1,2>3").edges), "0>1,2>3");
  EXPECT_THROW(parse_edges_pattern("0>0>1"), UsageError);
  EXPECT_THROW(check_in_range(parse_edges_pattern("0>9").edges, 8, "--edges"), UsageError);
}

}  // namespace
}  // namespace linkscope::plan
