#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/log_lines.hpp"

namespace linkscope::runtime {
namespace {

std::vector<std::string> lines_of(std::string_view text, LogLineLimits limits, LogLineCounts* counts = nullptr) {
  std::vector<std::string> lines;
  const LogLineCounts c = for_each_log_line(text, [&](std::string_view line) { lines.emplace_back(line); }, limits);
  if (counts != nullptr) *counts = c;
  return lines;
}

TEST(LogLines, SplitsAndDropsCarriageReturns) {
  const auto lines = lines_of("a\r\nb\n\nc", {});
  EXPECT_EQ(lines, (std::vector<std::string>{"a", "b", "", "c"}));
}

TEST(LogLines, SkipsLongLinesWholeAndStopsAtTheSizeCap) {
  LogLineCounts counts;
  const auto lines = lines_of("short\n" + std::string(20, 'x') + "\nafter\n", {10, 1000}, &counts);
  EXPECT_EQ(lines, (std::vector<std::string>{"short", "after"}));
  EXPECT_EQ(counts.skipped_long, 1u);
  EXPECT_FALSE(counts.truncated);
  const auto capped = lines_of("one\ntwo\nthree\n", {100, 6}, &counts);
  EXPECT_EQ(capped, (std::vector<std::string>{"one", "tw"}));
  EXPECT_TRUE(counts.truncated);
  // The default cap is above NCCL's own 1 KiB lines.
  EXPECT_EQ(lines_of(std::string(1100, 'y'), {}).size(), 1u);
  EXPECT_TRUE(lines_of(std::string(kMaxLogLineBytes + 1, 'y'), {}).empty());
}

TEST(LogLines, CheckedNumbersRejectWhatDoesNotFit) {
  EXPECT_EQ(parse_log_int("42"), 42);
  EXPECT_EQ(parse_log_int("-1"), -1);
  EXPECT_EQ(parse_log_int("2147483647"), 2147483647);
  EXPECT_FALSE(parse_log_int("2147483648"));
  EXPECT_FALSE(parse_log_int("99999999999999999999999"));
  EXPECT_FALSE(parse_log_int(""));
  EXPECT_FALSE(parse_log_int("12x"));
  EXPECT_EQ(parse_log_u64("18446744073709551615"), 18446744073709551615ull);
  EXPECT_FALSE(parse_log_u64("18446744073709551616"));
  EXPECT_FALSE(parse_log_u64("-1"));
  EXPECT_EQ(parse_log_double("370.8"), 370.8);
  EXPECT_EQ(parse_log_double("30.000000"), 30.0);
  EXPECT_FALSE(parse_log_double("1e999"));
  EXPECT_FALSE(parse_log_double("inf"));
  EXPECT_FALSE(parse_log_double("1.2.3"));
  EXPECT_FALSE(parse_log_double("."));
  EXPECT_FALSE(parse_log_double(std::string(400, '9')));  // finite digits, but past what %f prints here
}

}  // namespace
}  // namespace linkscope::runtime
