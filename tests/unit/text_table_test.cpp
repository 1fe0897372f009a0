#include "core/text_table.hpp"

#include <gtest/gtest.h>

namespace linkscope {
namespace {

TEST(TextTable, ColumnsAlignWithTwoSpacesAndNoTrailingBlanks) {
  const std::string text = aligned_table({{"GPU", "BDF", ""}, {"0", "0000:00:06.0", "x"}, {"10", "-"}}, "  ");
  EXPECT_EQ(text,
            "  GPU  BDF\n"
            "  0    0000:00:06.0  x\n"
            "  10   -\n");
}

TEST(TextTable, EmptyTableIsEmpty) { EXPECT_EQ(aligned_table({}, "  "), ""); }

}  // namespace
}  // namespace linkscope
