#include "core/size.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace linkscope {
namespace {

TEST(ParseSize, PlainBytesAndBinarySuffixes) {
  EXPECT_EQ(parse_size("8"), 8u);
  EXPECT_EQ(parse_size("64K"), 65536u);
  EXPECT_EQ(parse_size("64k"), 65536u);
  EXPECT_EQ(parse_size("1M"), 1048576u);
  EXPECT_EQ(parse_size("8G"), 8589934592u);
  EXPECT_EQ(parse_size("2T"), 2199023255552u);
  EXPECT_EQ(parse_size("64KiB"), 65536u);
  EXPECT_EQ(parse_size("1MB"), 1048576u);
  EXPECT_EQ(parse_size("512B"), 512u);
}

TEST(ParseSize, ExactFractions) {
  EXPECT_EQ(parse_size("1.5G"), 1610612736u);
  EXPECT_EQ(parse_size("0.5K"), 512u);
  EXPECT_EQ(parse_size("2.0"), 2u);
}

TEST(ParseSize, RejectsBadInputWithTheText) {
  for (const char* bad : {"", "-1", "abc", "1X", "1.3", "K", "1KK", "1 K", "99999999999999999999", "20000000T"}) {
    try {
      parse_size(bad, "minimum size (-b)");
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find("minimum size (-b)"), std::string::npos) << e.what();
      EXPECT_EQ(e.code(), ExitCode::kUsage);
    }
  }
}

TEST(FormatSize, ShortBinarySpelling) {
  EXPECT_EQ(format_size(8), "8");
  EXPECT_EQ(format_size(1000), "1000");
  EXPECT_EQ(format_size(65536), "64K");
  EXPECT_EQ(format_size(1536), "1.5K");
  EXPECT_EQ(format_size(1048576), "1M");
  EXPECT_EQ(format_size(1610612736), "1.5G");
  EXPECT_EQ(format_size(8589934592ULL), "8G");
  EXPECT_EQ(format_size(3000), "3000");
}

TEST(FormatSize, RoundTripsThroughParse) {
  for (std::uint64_t bytes : {1ULL, 8ULL, 1024ULL, 1536ULL, 65536ULL, 1ULL << 30, 3ULL << 29, 123456789ULL}) {
    EXPECT_EQ(parse_size(format_size(bytes)), bytes) << format_size(bytes);
  }
}

TEST(Bandwidth, GigabytesAreDecimal) {
  EXPECT_DOUBLE_EQ(gigabytes_per_second(1000000000ULL, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(gigabytes_per_second(1ULL << 30, 0.5), 2.147483648);
  EXPECT_EQ(gigabytes_per_second(100, 0.0), 0.0);
}

}  // namespace
}  // namespace linkscope
