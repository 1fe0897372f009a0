#include "core/statistics.hpp"

#include <cmath>
#include <stdexcept>

#include <gtest/gtest.h>

namespace linkscope {
namespace {

TEST(Statistics, BasicSummary) {
  const Summary s = summarize({4, 1, 3, 2, 5});
  EXPECT_EQ(s.count, 5u);
  EXPECT_DOUBLE_EQ(s.median, 3);
  EXPECT_DOUBLE_EQ(s.mean, 3);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.max, 5);
  EXPECT_NEAR(s.stddev, std::sqrt(2.5), 1e-12);
  EXPECT_NEAR(s.cv, std::sqrt(2.5) / 3, 1e-12);
  EXPECT_DOUBLE_EQ(s.p05, 1.2);
  EXPECT_DOUBLE_EQ(s.p95, 4.8);
}

TEST(Statistics, EvenCountMedianInterpolates) {
  EXPECT_DOUBLE_EQ(summarize({1, 2, 3, 10}).median, 2.5);
}

TEST(Statistics, SingleSample) {
  const Summary s = summarize({7});
  EXPECT_DOUBLE_EQ(s.median, 7);
  EXPECT_DOUBLE_EQ(s.stddev, 0);
  EXPECT_DOUBLE_EQ(s.cv, 0);
  EXPECT_FALSE(s.ci_is_95);
  EXPECT_DOUBLE_EQ(s.median_ci_low, 7);
  EXPECT_DOUBLE_EQ(s.median_ci_high, 7);
}

TEST(Statistics, RejectsEmptyAndNaN) {
  EXPECT_THROW(summarize({}), std::invalid_argument);
  EXPECT_THROW(summarize({1.0, std::nan("")}), std::invalid_argument);
}

TEST(MedianConfidence, KnownOrderStatisticRanks) {
  // Textbook values for a 95% distribution-free CI of the median.
  EXPECT_FALSE(median_ci_ranks(5).is_95);
  RankInterval six = median_ci_ranks(6);
  EXPECT_TRUE(six.is_95);
  EXPECT_EQ(six.low, 1u);
  EXPECT_EQ(six.high, 6u);
  RankInterval ten = median_ci_ranks(10);
  EXPECT_EQ(ten.low, 2u);
  EXPECT_EQ(ten.high, 9u);
  RankInterval twenty = median_ci_ranks(20);
  EXPECT_EQ(twenty.low, 6u);
  EXPECT_EQ(twenty.high, 15u);
  RankInterval hundred = median_ci_ranks(100);
  EXPECT_EQ(hundred.low, 40u);
  EXPECT_EQ(hundred.high, 61u);
}

TEST(MedianConfidence, NormalApproximationIsContinuousWithExact) {
  const RankInterval exact = median_ci_ranks(1000);
  const RankInterval approx = median_ci_ranks(1001);
  EXPECT_NEAR(static_cast<double>(exact.low), static_cast<double>(approx.low), 2.0);
}

TEST(MedianConfidence, RelativeHalfWidthShrinksWithTightData) {
  std::vector<double> tight, loose;
  for (int i = 0; i < 30; ++i) {
    tight.push_back(100.0 + (i % 3) * 0.1);
    loose.push_back(100.0 + (i % 10) * 5.0);
  }
  EXPECT_LT(summarize(tight).median_ci_relative_halfwidth(), 0.01);
  EXPECT_GT(summarize(loose).median_ci_relative_halfwidth(), 0.01);
}

TEST(Percentile, Endpoints) {
  const std::vector<double> sorted{1, 2, 3};
  EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 0), 1);
  EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 100), 3);
  EXPECT_DOUBLE_EQ(percentile_of_sorted(sorted, 50), 2);
  EXPECT_THROW(percentile_of_sorted({}, 50), std::invalid_argument);
}

}  // namespace
}  // namespace linkscope
