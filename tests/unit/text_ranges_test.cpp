// Integer runs in words (core/text): CPU lists and MPI rank lists use the same collapsing.
#include <gtest/gtest.h>

#include "core/text.hpp"

namespace linkscope {
namespace {

TEST(TextRanges, RunsCollapseSortedAndUnique) {
  EXPECT_EQ(format_ranges({8, 0, 1, 2, 3, 3}, ","), "0-3,8");
  EXPECT_EQ(format_ranges({0, 2, 4}, ", "), "0, 2, 4");
  EXPECT_EQ(format_ranges({}, ","), "");
}

TEST(TextRanges, RankLists) {
  EXPECT_EQ(rank_list({3}), "rank 3");
  EXPECT_EQ(rank_list({7, 6, 5, 4, 3, 2, 1, 0}), "ranks 0-7");
  EXPECT_EQ(rank_list({0, 1, 2, 3, 8}), "ranks 0-3, 8");
  EXPECT_EQ(rank_list({}), "no rank");
}

}  // namespace
}  // namespace linkscope
