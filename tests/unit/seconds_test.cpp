// checked_seconds: the one check of every --timeout and --max-time.
#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/seconds.hpp"

namespace linkscope {
namespace {

std::string refusal(double value, ZeroSeconds zero = ZeroSeconds::kAllowed) {
  try {
    checked_seconds(value, "--timeout", zero);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(CheckedSeconds, FiniteNonNegativeSecondsPass) {
  EXPECT_EQ(checked_seconds(0, "--timeout"), 0);
  EXPECT_EQ(checked_seconds(60, "--timeout", ZeroSeconds::kRefused), 60);
  EXPECT_EQ(checked_seconds(0.15, "--max-time", ZeroSeconds::kRefused), 0.15);
}

TEST(CheckedSeconds, NanInfinityNegativeAndHugeAreOneLineUsageErrors) {
  EXPECT_NE(refusal(std::nan("")).find("invalid --timeout nan"), std::string::npos);
  EXPECT_NE(refusal(std::numeric_limits<double>::infinity()).find("inf"), std::string::npos);
  EXPECT_NE(refusal(-1).find("--timeout -1"), std::string::npos);
  EXPECT_NE(refusal(0, ZeroSeconds::kRefused).find("> 0"), std::string::npos);
  // 1e300 would overflow the nanoseconds the waits use; the message spells it short and names the limit.
  const std::string huge = refusal(1e300);
  EXPECT_NE(huge.find("1e+300"), std::string::npos) << huge;
  EXPECT_NE(huge.find("at most 9223372036"), std::string::npos) << huge;
  EXPECT_EQ(huge.find('\n'), std::string::npos);
}

}  // namespace
}  // namespace linkscope
