#include <gtest/gtest.h>

#include "support/run_command.hpp"

namespace linkscope {
namespace {

using test::run_command;

TEST(Cli, VersionPrintsAndExitsZero) {
  const auto result = run_command(LINKSCOPE_BINARY, {"version"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_EQ(result.out.rfind("linkscope ", 0), 0u) << result.out;
}

TEST(Cli, HelpExitsZero) {
  const auto result = run_command(LINKSCOPE_BINARY, {"--help"});
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.out.find("version"), std::string::npos);
}

TEST(Cli, UnknownFlagIsAOneLineUsageError) {
  const auto result = run_command(LINKSCOPE_BINARY, {"version", "--bogus"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--bogus"), std::string::npos) << result.err;
  EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << "expected one line: " << result.err;
}

TEST(Cli, UnknownSubcommandIsAUsageError) {
  const auto result = run_command(LINKSCOPE_BINARY, {"frobnicate"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_FALSE(result.err.empty());
}

TEST(Cli, NoSubcommandIsAUsageError) {
  const auto result = run_command(LINKSCOPE_BINARY, {});
  EXPECT_EQ(result.exit_code, 2);
}

}  // namespace
}  // namespace linkscope
