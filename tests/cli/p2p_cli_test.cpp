#include <gtest/gtest.h>

#include "support/run_command.hpp"

namespace linkscope {
namespace {

using test::run_command;

// CUDA_VISIBLE_DEVICES=-1 hides every GPU, so these tests behave the same with or without one.
const std::vector<std::string> kNoGpu = {"CUDA_VISIBLE_DEVICES=-1"};

void expect_one_line_error(const test::CommandResult& result, int code, const std::string& fragment) {
  EXPECT_EQ(result.exit_code, code) << result.err;
  EXPECT_EQ(result.err.rfind("linkscope: error: ", 0), 0u) << result.err;
  EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << "expected one line: " << result.err;
  EXPECT_NE(result.err.find(fragment), std::string::npos) << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
}

TEST(P2pCli, NoGpuOrDriverIsExit3InOneLine) {
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"p2p"}, kNoGpu), 3, "no usable CUDA GPU");
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"patterns"}, kNoGpu), 3, "no usable CUDA GPU");
}

TEST(P2pCli, BadPairSyntaxIsExit2BeforeTouchingTheDriver) {
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"p2p", "--pairs", "0>0>1"}, kNoGpu), 2, "'0>0>1'");
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"p2p", "--pairs", "a>b"}, kNoGpu), 2, "'a>b'");
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"p2p", "--pairs", "0>1,"}, kNoGpu), 2, "--pairs");
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"p2p", "-d", "0,x"}, kNoGpu), 2, "'x'");
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"patterns", "--edges", "1>"}, kNoGpu), 2, "--edges");
}

TEST(P2pCli, BadSizesAreExit2) {
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"p2p", "-b", "12Q"}, kNoGpu), 2, "'12Q'");
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"p2p", "-b", "1G", "-e", "1M"}, kNoGpu), 2, "larger than");
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"p2p", "-e", "-5"}, kNoGpu), 2, "-5");
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"patterns", "--size", "0"}, kNoGpu), 2, "--size");
}

TEST(P2pCli, OtherBadOptionsAreExit2) {
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"p2p", "--method", "dma"}, kNoGpu), 2, "--method");
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"p2p", "--mode", "both"}, kNoGpu), 2, "--mode");
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"p2p", "--measure", "copy,bogus"}, kNoGpu), 2, "bogus");
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"p2p", "--target-ci", "0"}, kNoGpu), 2, "--target-ci");
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"p2p", "--sm-unroll", "3"}, kNoGpu), 2, "--sm-unroll");
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"p2p", "--sm-kernel", "warp"}, kNoGpu), 2, "warp");
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"p2p", "--sm-repeat", "twice"}, kNoGpu), 2, "--sm-repeat");
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"patterns", "--sm-repeat", "x"}, kNoGpu), 2, "--sm-repeat");
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"p2p", "--latency-order", "zigzag"}, kNoGpu), 2, "zigzag");
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"p2p", "--latency-load", "cv"}, kNoGpu), 2, "--latency-load");
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"p2p", "--latency-footprint", "1000"}, kNoGpu), 2,
                        "--latency-footprint");
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"p2p", "--span-sync", "barrier"}, kNoGpu), 2, "--span-sync");
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"p2p", "--cpu-node", "4096"}, kNoGpu), 2, "--cpu-node 4096");
  expect_one_line_error(run_command(LINKSCOPE_BINARY, {"patterns", "--preset", "mesh"}, kNoGpu), 2, "'mesh'");
}

TEST(P2pCli, HelpListsTheCommandsButNotTheTuningOptions) {
  const auto top = run_command(LINKSCOPE_BINARY, {"--help"});
  EXPECT_NE(top.out.find("p2p"), std::string::npos);
  EXPECT_NE(top.out.find("patterns"), std::string::npos);
  const auto p2p = run_command(LINKSCOPE_BINARY, {"p2p", "--help"});
  EXPECT_EQ(p2p.exit_code, 0);
  EXPECT_NE(p2p.out.find("--bidirectional"), std::string::npos);
  for (const char* hidden : {"--sm-unroll", "--sm-repeat", "--latency-order", "--latency-load", "--latency-footprint",
                             "--span-sync"}) {
    EXPECT_EQ(p2p.out.find(hidden), std::string::npos) << hidden << ": tuning options are hidden";
  }
}

}  // namespace
}  // namespace linkscope
