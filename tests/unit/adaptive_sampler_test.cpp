#include "core/adaptive_sampler.hpp"

#include <gtest/gtest.h>

namespace linkscope {
namespace {

TEST(AdaptiveSampler, StopsWhenPreciseEnough) {
  AdaptiveSampler sampler({0.01, 100.0, 6, 1000});
  int added = 0;
  while (!sampler.done()) {
    sampler.add(100.0 + (added % 2) * 0.1, 0.001);
    ++added;
  }
  EXPECT_EQ(sampler.stop_reason(), StopReason::kPrecisionReached);
  EXPECT_EQ(added, 6);
}

TEST(AdaptiveSampler, NoisyDataRunsIntoTheTimeBudget) {
  AdaptiveSampler sampler({0.001, 0.05, 6, 100000});
  int added = 0;
  while (!sampler.done()) {
    sampler.add(100.0 + (added % 7) * 10.0, 0.001);
    ++added;
  }
  EXPECT_EQ(sampler.stop_reason(), StopReason::kTimeBudget);
  EXPECT_EQ(added, 50);
}

TEST(AdaptiveSampler, OneHugeSampleEndsThePoint) {
  AdaptiveSampler sampler({0.01, 1.0, 6, 1000});
  sampler.add(5.0, 3.0);
  EXPECT_EQ(sampler.stop_reason(), StopReason::kTimeBudget);
  EXPECT_EQ(sampler.summary().count, 1u);
}

TEST(AdaptiveSampler, SampleLimit) {
  AdaptiveSampler sampler({0.0, 1e9, 1, 3});
  for (int i = 0; i < 3; ++i) sampler.add(i * 50.0, 0.0);
  EXPECT_EQ(sampler.stop_reason(), StopReason::kSampleLimit);
}

TEST(AdaptiveSampler, NeverDoneWithoutSamples) {
  AdaptiveSampler sampler({0.01, 0.0, 6, 100});
  EXPECT_FALSE(sampler.done());
}

}  // namespace
}  // namespace linkscope
