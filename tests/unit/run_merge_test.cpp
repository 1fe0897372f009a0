#include "model/run_merge.hpp"

#include <gtest/gtest.h>

namespace linkscope::model {
namespace {

CollectiveSeries series(CollectiveOp op) {
  CollectiveSeries s;
  s.op = op;
  s.nranks = 2;
  return s;
}

TEST(RunMerge, AppendsCollectivesAndRuntimeRunsFromEveryChild) {
  model::Run run, first, second;
  first.measurements.collectives = std::vector<CollectiveSeries>{series(CollectiveOp::kAllReduce)};
  first.runtime.nccl_version = "2.28.3";
  first.runtime.runs = {RuntimeRun::not_recorded("coll all_reduce", "x")};
  second.measurements.collectives = std::vector<CollectiveSeries>{series(CollectiveOp::kSendRecv)};
  second.runtime.nccl_version = "2.28.9";
  second.runtime.runs = {RuntimeRun::not_recorded("coll sendrecv", "x")};
  merge_child_run(run, first, "coll all_reduce");
  merge_child_run(run, second, "coll sendrecv");
  ASSERT_EQ(run.measurements.collectives->size(), 2u);
  EXPECT_EQ((*run.measurements.collectives)[1].op, CollectiveOp::kSendRecv);
  EXPECT_EQ(run.runtime.runs.size(), 2u);
  EXPECT_EQ(run.runtime.nccl_version, "2.28.3");
}

TEST(RunMerge, SecondP2pStepAddsItsPointsToTheFirst) {
  model::Run run, sweep, bidir;
  sweep.measurements.p2p.emplace();
  sweep.measurements.p2p->request.methods = {plan::CopyMethod::kCe};
  sweep.measurements.p2p->points.push_back(CopyPoint{});
  sweep.measurements.p2p->latency.push_back(LatencyPoint{});
  bidir.measurements.p2p.emplace();
  bidir.measurements.p2p->request.bidirectional = true;
  CopyPoint both;
  both.direction = "bidir";
  bidir.measurements.p2p->points.push_back(both);
  merge_child_run(run, sweep, "p2p");
  merge_child_run(run, bidir, "p2p bidirectional");
  const auto& p2p = *run.measurements.p2p;
  ASSERT_EQ(p2p.points.size(), 2u);
  EXPECT_EQ(p2p.points[1].direction, "bidir");
  EXPECT_EQ(p2p.latency.size(), 1u);
  EXPECT_FALSE(p2p.request.bidirectional) << "the first step's config describes the sweep";
}

TEST(RunMerge, OtherSectionsAreTakenAndErrorsNameTheStep) {
  model::Run run, patterns;
  patterns.measurements.patterns.emplace();
  PatternResult ring;
  ring.name = "ring";
  patterns.measurements.patterns->patterns.push_back(ring);
  patterns.measurements.patterns->numa = NumaSweep{};
  patterns.record_error("ring 0>1", "out of memory");
  merge_child_run(run, patterns, "patterns");
  ASSERT_TRUE(run.measurements.patterns);
  EXPECT_EQ(run.measurements.patterns->patterns[0].name, "ring");
  EXPECT_TRUE(run.measurements.patterns->numa.has_value());
  ASSERT_EQ(run.errors.size(), 1u);
  EXPECT_EQ(run.errors[0].where, "patterns: ring 0>1");
  EXPECT_EQ(run.errors[0].message, "out of memory");
}

}  // namespace
}  // namespace linkscope::model
