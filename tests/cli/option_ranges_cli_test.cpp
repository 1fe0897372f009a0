// Issue 23: an integer option given a number that does not fit (`-n 99999999999`) is one usage line stating the
// range, for every integer option of every subcommand, never CLI11's bare "Could not convert".
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/run_command.hpp"

namespace linkscope {
namespace {

using test::run_command;

TEST(OptionRangesCli, AnIntegerOptionThatOverflowsSaysItsRange) {
  const std::vector<std::vector<std::string>> commands = {
      {"coll", "-n"}, {"coll", "-w"}, {"coll", "-m"}, {"coll", "-N"}, {"coll", "-c"}, {"coll", "-G"},
      {"coll", "-a"}, {"coll", "-t"}, {"coll", "-g"}, {"coll", "-p"}, {"coll", "-z"}, {"coll", "-y"},
      {"coll", "-R"}, {"coll", "-x"}, {"coll", "-D"}, {"coll", "-V"}, {"coll", "-S"}, {"coll", "-M"},
      {"coll", "-u"}, {"coll", "-I"}, {"coll", "-K"}, {"ladder", "-g"}, {"p2p", "--cpu-node"},
      {"patterns", "--cpu-node"}, {"p2p", "--ops"}};
  for (const auto& command : commands) {
    for (const std::string value : {"99999999999", "2147483648", "99999999999999999999999"}) {
      std::vector<std::string> args = command;
      args.push_back(value);
      const auto result = run_command(LINKSCOPE_BINARY, args, {"CUDA_VISIBLE_DEVICES="}, 60);
      const std::string line = command[0] + " " + command[1] + " " + value;
      EXPECT_EQ(result.exit_code, 2) << line << "\n" << result.err;
      EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << line << "\n" << result.err;
      EXPECT_NE(result.err.find("from -2147483648 to 2147483647"), std::string::npos) << line << "\n" << result.err;
      EXPECT_EQ(result.err.find("Could not convert"), std::string::npos) << line << "\n" << result.err;
    }
  }
  // Not a number at all: the same range.
  const auto word = run_command(LINKSCOPE_BINARY, {"coll", "-n", "many"}, {"CUDA_VISIBLE_DEVICES="}, 60);
  EXPECT_EQ(word.exit_code, 2) << word.err;
  EXPECT_NE(word.err.find("not a whole number"), std::string::npos) << word.err;
}

}  // namespace
}  // namespace linkscope
