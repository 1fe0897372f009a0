#include "discover/cpu_list.hpp"

#include <stdexcept>

#include <gtest/gtest.h>

namespace linkscope {
namespace {

TEST(CpuList, ParsesSysfsSyntax) {
  EXPECT_EQ(parse_cpu_list("0-3,8\n"), (std::vector<int>{0, 1, 2, 3, 8}));
  EXPECT_EQ(parse_cpu_list("5"), (std::vector<int>{5}));
  EXPECT_TRUE(parse_cpu_list("").empty());
  EXPECT_EQ(parse_cpu_list("0-31").size(), 32u);
}

TEST(CpuList, RejectsMalformed) {
  for (const char* bad : {"a", "3-1", "1,,2", "1-", "-1", "99999999"}) {
    EXPECT_THROW(parse_cpu_list(bad), std::invalid_argument) << bad;
  }
}

TEST(CpuList, FormatsCollapsedRanges) {
  EXPECT_EQ(format_cpu_list({8, 0, 1, 2, 3, 3}), "0-3,8");
  EXPECT_EQ(format_cpu_list({}), "");
  EXPECT_EQ(format_cpu_list(parse_cpu_list("0-31,64-95")), "0-31,64-95");
}

}  // namespace
}  // namespace linkscope
