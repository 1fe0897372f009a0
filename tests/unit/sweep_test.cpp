#include "core/sweep.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace linkscope {
namespace {

TEST(Sweep, MultiplicativeLikeNcclTests) {
  const auto sizes = sweep_sizes({8, 8ULL << 30, 2.0, 0});
  ASSERT_EQ(sizes.size(), 31u);  // 8 B .. 8 GiB doubling: 2^3 .. 2^33
  EXPECT_EQ(sizes.front(), 8u);
  EXPECT_EQ(sizes.back(), 8ULL << 30);
  EXPECT_EQ(sizes[1], 16u);
}

TEST(Sweep, MultiplicativeStopsAtOrBelowMax) {
  const auto sizes = sweep_sizes({1024, 1ULL << 30, 4.0, 0});
  EXPECT_EQ(sizes.back(), 1ULL << 30);
  EXPECT_EQ(sizes.size(), 11u);
  const auto uneven = sweep_sizes({3, 100, 2.0, 0});
  EXPECT_EQ(uneven, (std::vector<std::uint64_t>{3, 6, 12, 24, 48, 96}));
}

TEST(Sweep, AdditiveStep) {
  const auto sizes = sweep_sizes({1 << 20, 4 << 20, 1.0, 1 << 20});
  EXPECT_EQ(sizes, (std::vector<std::uint64_t>{1 << 20, 2 << 20, 3 << 20, 4 << 20}));
}

TEST(Sweep, SingleSize) {
  EXPECT_EQ(sweep_sizes({64, 64, 1.0, 0}), (std::vector<std::uint64_t>{64}));
}

TEST(Sweep, FractionalFactorStillProgresses) {
  const auto sizes = sweep_sizes({8, 16, 1.1, 0});
  EXPECT_EQ(sizes.front(), 8u);
  EXPECT_EQ(sizes.back(), 16u);
  for (std::size_t i = 1; i < sizes.size(); ++i) EXPECT_GT(sizes[i], sizes[i - 1]);
}

TEST(Sweep, RejectsSweepsThatCannotWork) {
  EXPECT_THROW(sweep_sizes({1024, 8, 2.0, 0}), UsageError);   // -b > -e
  EXPECT_THROW(sweep_sizes({0, 1024, 2.0, 0}), UsageError);   // -b 0 with a factor never grows
  EXPECT_THROW(sweep_sizes({8, 1024, 1.0, 0}), UsageError);   // no step at all
  EXPECT_THROW(sweep_sizes({1, 1ULL << 40, 1.0, 1}), UsageError);  // absurd number of points
}

TEST(Sweep, ErrorNamesTheFlags) {
  try {
    sweep_sizes({1024, 8, 2.0, 0});
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("-b"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("-e"), std::string::npos);
  }
}

}  // namespace
}  // namespace linkscope
