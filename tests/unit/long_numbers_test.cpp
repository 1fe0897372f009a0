// clip_long_numbers: what every error line goes through, so a 300-digit argument is not echoed whole.
#include <string>

#include <gtest/gtest.h>

#include "core/long_numbers.hpp"

namespace linkscope {
namespace {

TEST(ClipLongNumbers, LimitsStayWholeLongerRunsAreClipped) {
  EXPECT_EQ(clip_long_numbers("at most 18446744073709551615 bytes"), "at most 18446744073709551615 bytes");
  EXPECT_EQ(clip_long_numbers("-n " + std::string(300, '9') + " is bad"),
            "-n " + std::string(kMaxMessageDigits, '9') + "... (300 digits) is bad");
  EXPECT_EQ(clip_long_numbers(""), "");
  EXPECT_EQ(clip_long_numbers("GPU 3 and 1e+300"), "GPU 3 and 1e+300");
}

}  // namespace
}  // namespace linkscope
