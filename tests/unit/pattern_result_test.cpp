#include "model/patterns.hpp"

#include <gtest/gtest.h>

namespace linkscope::model {
namespace {

PatternResult measured(const std::string& name, double aggregate, std::optional<int> node = std::nullopt) {
  PatternResult r;
  r.name = name;
  r.method = "ce";
  r.bytes = 256 << 20;
  r.cpu_node = node;
  r.aggregate_gbps = Stat3{aggregate, aggregate * 0.99, aggregate * 1.01};
  EdgeResult a, b;
  a.src = 0; a.dst = 1; a.alone_gbps = 390.0;
  b.src = 1; b.dst = 0; b.alone_gbps = 395.0;
  r.edges = {a, b};
  return r;
}

TEST(PatternResult, ScalingIsAggregateOverTheSumOfEdgesAlone) {
  PatternResult r = measured("bidirectional", 770.0);
  compute_scaling(r);
  ASSERT_TRUE(r.sum_alone_gbps && r.scaling);
  EXPECT_DOUBLE_EQ(*r.sum_alone_gbps, 785.0);
  EXPECT_NEAR(*r.scaling, 770.0 / 785.0, 1e-12);
  r.edges[1].alone_gbps.reset();
  compute_scaling(r);
  EXPECT_FALSE(r.sum_alone_gbps.has_value());
  EXPECT_FALSE(r.scaling.has_value());
}

TEST(PatternResult, NumaSweepReportsTheLargestRelativeDifference) {
  std::vector<PatternResult> results = {measured("ring", 700, 0), measured("ring", 630, 1),
                                        measured("single", 390, 0), measured("single", 389, 1),
                                        measured("fan-in", 500, 0)};
  const NumaSweep sweep = summarize_numa_sweep({0, 1}, results);
  ASSERT_TRUE(sweep.largest_relative_difference.has_value());
  EXPECT_NEAR(*sweep.largest_relative_difference, 0.1, 1e-12);
  EXPECT_EQ(sweep.pattern, "ring");
  EXPECT_EQ(sweep.per_node.size(), 5u);
  const auto json = to_json(sweep);
  EXPECT_EQ(json["pattern"], "ring");
}

TEST(PatternResult, OneNumaNodeSaysSo) {
  const NumaSweep sweep = summarize_numa_sweep({0}, {measured("single", 390, 0)});
  EXPECT_FALSE(sweep.largest_relative_difference.has_value());
  EXPECT_NE(sweep.reason.find("one NUMA node"), std::string::npos);
  EXPECT_TRUE(to_json(sweep)["largest_relative_difference"].is_null());
}

TEST(PatternResult, JsonRoundTrip) {
  PatternResult ok = measured("bidirectional", 770.0);
  compute_scaling(ok);
  PatternResult skipped;
  skipped.name = "ring";
  skipped.status = PointStatus::kNa;
  skipped.reason = "needs 3 GPUs, 2 present";
  const auto json = patterns_to_json({ok, skipped});
  EXPECT_DOUBLE_EQ(json[0]["aggregate_gbps"].get<double>(), 770.0);
  EXPECT_TRUE(json[1]["aggregate_gbps"].is_null());
  EXPECT_EQ(json[1]["reason"], "needs 3 GPUs, 2 present");
  const auto back = patterns_from_json(JsonReader::root(json, "test"));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_NEAR(*back[0].scaling, *ok.scaling, 1e-12);
  EXPECT_EQ(back[0].edges[1].alone_gbps, 395.0);
  EXPECT_EQ(back[1].status, PointStatus::kNa);
}

}  // namespace
}  // namespace linkscope::model
