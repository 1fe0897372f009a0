// nccl-tests 2.19.6's timing arithmetic (plan/nccl_tests_timing): what the personalities' `time` and `cputime`
// columns divide by, where -I's events go, how -a combines ranks and how -I's summary is computed.
#include <gtest/gtest.h>

#include <vector>

#include "core/error.hpp"
#include "plan/nccl_tests_timing.hpp"

namespace linkscope::coll {
namespace {

// -N: the host timer repeats each series before the next (nccl-tests), the events the whole list; 0 never ends.
TEST(NcclTestsTiming, SweepOrderOfTheCyclesAndNZeroWithoutEnd) {
  std::vector<std::size_t> host, events;
  for (std::size_t step = 0; step < 100; ++step) {
    if (const auto i = sweep_series_at(step, 2, 3, TimingClock::kHostLoop)) host.push_back(*i);
    if (const auto i = sweep_series_at(step, 2, 3, TimingClock::kEvents)) events.push_back(*i);
  }
  EXPECT_EQ(host, (std::vector<std::size_t>{0, 0, 0, 1, 1, 1}));
  EXPECT_EQ(events, (std::vector<std::size_t>{0, 1, 0, 1, 0, 1}));
  EXPECT_FALSE(sweep_series_at(0, 0, 3, TimingClock::kEvents));
  const std::size_t far = std::size_t{1} << 40;  // no end, and no list of the steps to hold
  EXPECT_EQ(sweep_series_at(far, 2, 0, TimingClock::kHostLoop), 0u);
  EXPECT_EQ(sweep_series_at(far + 1, 2, 0, TimingClock::kEvents), 1u);
}

TEST(NcclTestsTiming, TimeIsTheLoopOverItsOperations) {
  HostLoopReading r;
  r.loop_seconds = 0.0012;
  r.enqueue_seconds = 0.0003;
  r.iters = 20;
  r.agg_iters = 3;
  EXPECT_DOUBLE_EQ(seconds_per_operation(r), 0.0012 / 60);
  EXPECT_DOUBLE_EQ(cpu_seconds_per_operation(r), 0.0003 / 60);
}

TEST(NcclTestsTiming, GraphLaunchesDivideTheTimeButNotTheCpuTime) {
  HostLoopReading r;
  r.loop_seconds = 0.004;
  r.enqueue_seconds = 0.001;
  r.iters = 20;
  r.graph_launches = 4;
  EXPECT_DOUBLE_EQ(seconds_per_operation(r), 0.004 / 20 / 4);
  // nccl-tests divides its cputime by iters x agg only, also with -G.
  EXPECT_DOUBLE_EQ(cpu_seconds_per_operation(r), 0.001 / 20);
}

TEST(NcclTestsTiming, EventsShareBoundariesExceptWithBlockingModeThree) {
  EXPECT_EQ(per_iteration_event_count(20, BlockingMode::kOff), 21);
  EXPECT_EQ(iteration_start_event(4, BlockingMode::kOff), 4);
  EXPECT_EQ(iteration_stop_event(4, BlockingMode::kOff), 5);
  EXPECT_EQ(per_iteration_event_count(20, BlockingMode::kWaitAndBarrier), 21);
  EXPECT_EQ(per_iteration_event_count(20, BlockingMode::kPerIterationExcludingBarrier), 40);
  EXPECT_EQ(iteration_start_event(4, BlockingMode::kPerIterationExcludingBarrier), 8);
  EXPECT_EQ(iteration_stop_event(4, BlockingMode::kPerIterationExcludingBarrier), 9);
}

TEST(NcclTestsTiming, RanksCombineAsMinusA) {
  const std::vector<double> v{3.0, 1.0, 2.0, 6.0};
  EXPECT_DOUBLE_EQ(reduce_rank_values(v, RankTimeReduction::kRank0), 3.0);
  EXPECT_DOUBLE_EQ(reduce_rank_values(v, RankTimeReduction::kAverage), 3.0);
  EXPECT_DOUBLE_EQ(reduce_rank_values(v, RankTimeReduction::kMinimum), 1.0);
  EXPECT_DOUBLE_EQ(reduce_rank_values(v, RankTimeReduction::kMaximum), 6.0);
  EXPECT_DOUBLE_EQ(reduce_rank_values({}, RankTimeReduction::kMaximum), 0.0);
}

TEST(NcclTestsTiming, IterationStatsUseUpperMedianAndNearestRankPercentiles) {
  // 1..10 shuffled: p50 is sorted[5] = 6 (not 5.5), p95 and p99 the 10th value, population stdev.
  const std::vector<double> t{7, 3, 10, 1, 9, 2, 8, 4, 6, 5};
  const IterationStats s = iteration_stats(t, 0);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 10);
  EXPECT_DOUBLE_EQ(s.p50, 6);
  EXPECT_DOUBLE_EQ(s.p95, 10);
  EXPECT_DOUBLE_EQ(s.p99, 10);
  EXPECT_DOUBLE_EQ(s.avg, 5.5);
  EXPECT_NEAR(s.stdev, 2.8722813232690143, 1e-12);
  EXPECT_NEAR(s.cv_percent(), 2.8722813232690143 / 5.5 * 100, 1e-9);
}

TEST(NcclTestsTiming, PercentilesOfAHundredIterations) {
  std::vector<double> t;
  for (int i = 100; i >= 1; --i) t.push_back(i);
  const IterationStats s = iteration_stats(t, 0);
  EXPECT_DOUBLE_EQ(s.p95, 95);  // index ceil(100 x 95 / 100) - 1 = 94
  EXPECT_DOUBLE_EQ(s.p99, 99);
  EXPECT_DOUBLE_EQ(s.p50, 51);  // sorted[50]
}

TEST(NcclTestsTiming, SkippedIterationsLeaveTheSummary) {
  const std::vector<double> t{100, 2, 4};
  const IterationStats s = iteration_stats(t, 1);
  EXPECT_DOUBLE_EQ(s.max, 4);
  EXPECT_DOUBLE_EQ(s.avg, 3);
  EXPECT_THROW(iteration_stats(t, 3), UsageError);
  EXPECT_THROW(iteration_stats({}, 0), UsageError);
}

TEST(NcclTestsTiming, ZeroMeanHasZeroCv) {
  const IterationStats s = iteration_stats({0.0, 0.0}, 0);
  EXPECT_DOUBLE_EQ(s.cv_percent(), 0.0);
}

TEST(NcclTestsTiming, SlowestRowPerIteration) {
  const std::vector<std::vector<double>> rows{{1, 5, 2}, {3, 4, 2.5}};
  EXPECT_EQ(slowest_per_iteration(rows), (std::vector<double>{3, 5, 2.5}));
  EXPECT_TRUE(slowest_per_iteration({}).empty());
}

}  // namespace
}  // namespace linkscope::coll
