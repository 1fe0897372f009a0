// `linkscope p2p --testcase` / `--list-testcases`: what is checked before any GPU is touched.
#include <gtest/gtest.h>

#include "support/run_command.hpp"

namespace linkscope {
namespace {

using test::run_command;

const std::vector<std::string> kNoGpu = {"CUDA_VISIBLE_DEVICES=-1"};

void expect_usage_error(const std::vector<std::string>& args, const std::string& fragment) {
  const auto result = run_command(LINKSCOPE_BINARY, args, kNoGpu);
  EXPECT_EQ(result.exit_code, 2) << result.err;
  EXPECT_EQ(result.err.rfind("linkscope: error: ", 0), 0u) << result.err;
  EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << "expected one line: " << result.err;
  EXPECT_NE(result.err.find(fragment), std::string::npos) << result.err;
  EXPECT_TRUE(result.out.empty()) << result.out;
}

TEST(P2pTestcaseCli, ListTestcasesNeedsNoGpu) {
  const auto result = run_command(LINKSCOPE_BINARY, {"p2p", "--list-testcases"}, kNoGpu);
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("0, host_to_device_memcpy_ce:\n"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("32, host_device_latency_sm:\n"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("34, device_local_copy:\n"), std::string::npos) << result.out;
}

TEST(P2pTestcaseCli, UnknownTestcaseIsExit2ListingTheValidOnes) {
  expect_usage_error({"p2p", "--testcase", "device_local_copy", "--testcase", "h2d"},
                     "--testcase h2d: unknown nvbandwidth testcase; valid: host_to_device_memcpy_ce,");
}

TEST(P2pTestcaseCli, CurveOptionsDoNotMixWithTestcases) {
  expect_usage_error({"p2p", "--testcase", "device_local_copy", "--pairs", "0>1"},
                     "--pairs does not apply to --testcase");
  expect_usage_error({"p2p", "--testcase", "device_local_copy", "-e", "1G"}, "--maxbytes does not apply to --testcase");
  expect_usage_error({"p2p", "--buffer-size", "64M"}, "--buffer-size applies to --testcase only");
  expect_usage_error({"p2p", "--testcase", "device_local_copy", "--buffer-size", "100"}, "multiple of 16");
}

TEST(P2pTestcaseCli, AValidSelectionGoesOnToTheDriver) {
  const auto result = run_command(LINKSCOPE_BINARY, {"p2p", "--testcase", "device_local_copy"}, kNoGpu);
  EXPECT_EQ(result.exit_code, 3) << result.err;
  EXPECT_NE(result.err.find("no usable CUDA GPU"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace linkscope
