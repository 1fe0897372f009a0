#include <gtest/gtest.h>

#include <string>

#include "core/error.hpp"
#include "plan/nccl_tests_split.hpp"

namespace linkscope::coll {
namespace {

SplitRule rule_of(const std::string& name, const std::string& value) {
  return parse_split_rule(Environment::from_map({{name, value}}));
}

std::vector<int> colors_of(const SplitRule& rule, int procs) {
  std::vector<int> colors;
  for (int p = 0; p < procs; ++p) colors.push_back(split_color(rule, p));
  return colors;
}

TEST(NcclTestsSplit, MaskIsHexadecimalAndWins) {
  EXPECT_EQ(colors_of(rule_of("NCCL_TESTS_SPLIT_MASK", "0x1"), 4), (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(colors_of(rule_of("NCCL_TESTS_SPLIT_MASK", "10"), 20)[17], 16);  // 0x10
  EXPECT_EQ(colors_of(rule_of("NCCL_TESTS_SPLIT_MASK", "6"), 8), (std::vector<int>{0, 0, 2, 2, 4, 4, 6, 6}));
  // Not hexadecimal: strtoul reads nothing, every process gets colour 0 (as nccl-tests).
  EXPECT_EQ(colors_of(rule_of("NCCL_TESTS_SPLIT_MASK", "zz"), 3), (std::vector<int>{0, 0, 0}));
  const SplitRule both = parse_split_rule(
      Environment::from_map({{"NCCL_TESTS_SPLIT_MASK", "0x2"}, {"NCCL_TESTS_SPLIT", "MOD2"}}));
  EXPECT_EQ(both.kind, SplitRule::Kind::kMask);
  EXPECT_EQ(both.source, "NCCL_TESTS_SPLIT_MASK=0x2");
}

TEST(NcclTestsSplit, OperatorsInWordsAndSymbols) {
  EXPECT_EQ(colors_of(rule_of("NCCL_TESTS_SPLIT", "AND1"), 4), (std::vector<int>{0, 1, 0, 1}));
  EXPECT_EQ(colors_of(rule_of("NCCL_TESTS_SPLIT", "&0x2"), 4), (std::vector<int>{0, 0, 2, 2}));
  EXPECT_EQ(colors_of(rule_of("NCCL_TESTS_SPLIT", "or 0b100"), 3), (std::vector<int>{4, 5, 6}));
  EXPECT_EQ(colors_of(rule_of("NCCL_TESTS_SPLIT", "|1"), 4), (std::vector<int>{1, 1, 3, 3}));
  EXPECT_EQ(colors_of(rule_of("NCCL_TESTS_SPLIT", "MOD3"), 5), (std::vector<int>{0, 1, 2, 0, 1}));
  EXPECT_EQ(colors_of(rule_of("NCCL_TESTS_SPLIT", "%2"), 3), (std::vector<int>{0, 1, 0}));
  EXPECT_EQ(colors_of(rule_of("NCCL_TESTS_SPLIT", "div2"), 5), (std::vector<int>{0, 0, 1, 1, 2}));
  EXPECT_EQ(colors_of(rule_of("NCCL_TESTS_SPLIT", "/010"), 17)[16], 2);  // octal 8
  EXPECT_TRUE(rule_of("NCCL_TESTS_SPLIT", "MOD2").notes.empty());
}

TEST(NcclTestsSplit, UnknownRulesKeepOneGroupAndDivisionByZeroIsRefused) {
  for (const char* value : {"XOR3", "AND", "MODx", ""}) {
    const SplitRule r = rule_of("NCCL_TESTS_SPLIT", value);
    EXPECT_EQ(r.kind, SplitRule::Kind::kNone) << value;
    EXPECT_EQ(colors_of(r, 3), (std::vector<int>{0, 0, 0})) << value;
    ASSERT_EQ(r.notes.size(), 1u) << value;
    EXPECT_NE(r.notes[0].find("every process stays in one communicator"), std::string::npos);
  }
  EXPECT_EQ(parse_split_rule(Environment::from_map({})).kind, SplitRule::Kind::kNone);
  try {
    rule_of("NCCL_TESTS_SPLIT", "MOD0");
    ADD_FAILURE() << "MOD0 accepted";
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "NCCL_TESTS_SPLIT=MOD0 divides the rank by 0 (nccl-tests crashes there)");
  }
  EXPECT_THROW(rule_of("NCCL_TESTS_SPLIT", "/0"), UsageError);
}

TEST(NcclTestsSplit, GroupsKeepWorldOrder) {
  const std::vector<int> colors{0, 1, 0, 1, 0};  // NCCL_TESTS_SPLIT=MOD2 over 5 processes
  const ColorGroup g3 = color_group(colors, 3);
  EXPECT_EQ(g3.color, 1);
  EXPECT_EQ(g3.rank, 1);
  EXPECT_EQ(g3.size, 2);
  EXPECT_EQ(g3.leader, 1);
  const ColorGroup g4 = color_group(colors, 4);
  EXPECT_EQ(g4.rank, 2);
  EXPECT_EQ(g4.size, 3);
  EXPECT_EQ(g4.leader, 0);
  EXPECT_EQ(color_leaders(colors), (std::vector<int>{0, 1}));
  EXPECT_EQ(color_leaders({0, 0}), (std::vector<int>{0}));
  const ColorGroup alone = color_group({0}, 0);
  EXPECT_EQ(alone.size, 1);
  EXPECT_EQ(alone.rank, 0);
}

}  // namespace
}  // namespace linkscope::coll
