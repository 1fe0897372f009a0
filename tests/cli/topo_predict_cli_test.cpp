// `linkscope topo --xml FILE --predict [op]` and the search part of `--format nccl-log`, end to end.
#include <gtest/gtest.h>

#include "support/run_command.hpp"

namespace linkscope {
namespace {

using test::fixture;
using test::run_command;

const std::string kH200x2 = fixture("h200x2/nccl-topo-dump.xml");
const std::string kHgx = fixture("topo/hgx-h200-8gpu-nvswitch-vm-socketnic.xml");

test::CommandResult topo(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
  std::vector<std::string> full{"topo"};
  full.insert(full.end(), args.begin(), args.end());
  return run_command(LINKSCOPE_BINARY, full, env, 60);
}

TEST(TopoPredictCli, OneCollectiveTable) {
  const auto result = topo({"--xml", kHgx, "--predict", "all_reduce", "--nccl-version", "2.28.9"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out.rfind("NCCL 2.28.9 default tuner, 8 ranks on one node", 0), 0u) << result.out;
  EXPECT_NE(result.out.find("all_reduce (busbw = algbw x 1.750)"), std::string::npos) << result.out;
  EXPECT_EQ(result.out.find("all_gather ("), std::string::npos);
  // 8 B is latency: Ring LL on one channel; 8 GiB is Ring Simple on all 24 channels.
  EXPECT_NE(result.out.find("  8     8           Ring       LL        1  "), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("  8G    8589934592  Ring       Simple    24 "), std::string::npos) << result.out;
}

TEST(TopoPredictCli, EveryTunedCollectiveWithoutAnOp) {
  const auto result = topo({"--xml", kH200x2, "--predict"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const char* op : {"all_reduce (", "all_gather (", "reduce_scatter (", "broadcast (", "reduce ("}) {
    EXPECT_NE(result.out.find(op), std::string::npos) << op;
  }
}

TEST(TopoPredictCli, EnvironmentChangesTheChoice) {
  const auto result = topo({"--xml", kHgx, "--predict", "allreduce", "--env", "NCCL_ALGO=Tree"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("  8     8           Tree       LL        1  "), std::string::npos) << result.out;
  const auto refused = topo({"--xml", kHgx, "--predict", "broadcast", "--env", "NCCL_ALGO=Tree"});
  ASSERT_EQ(refused.exit_code, 0) << refused.err;
  EXPECT_NE(refused.out.find("none: invalid usage"), std::string::npos) << refused.out;
}

TEST(TopoPredictCli, UsageErrors) {
  auto result = topo({"--xml", kH200x2, "--predict", "sendrecv"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--predict sendrecv: NCCL's tuner chooses for"), std::string::npos) << result.err;
  result = topo({"--xml", kH200x2, "--predict", "--format", "json"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("does not combine with --format json"), std::string::npos) << result.err;
  result = topo({"--predict"});
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.err.find("--predict needs --xml FILE"), std::string::npos) << result.err;
}

TEST(TopoPredictCli, NcclLogEndsWithTheSearchAndTheTunerChoices) {
  const auto result = topo({"--xml", kH200x2, "--format", "nccl-log"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const auto search = result.out.find("\nPattern 4, crossNic 0, nChannels 12, bw 30.000000/30.000000, type NVL/PIX");
  ASSERT_NE(search, std::string::npos) << result.out;
  EXPECT_LT(result.out.find("\nGDR GPU/0-60 -> NET/0-0 : "), search);  // after today's lines
  EXPECT_NE(result.out.find("\n24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p "
                            "channels per peer\nALGO AllReduce 8 : algo Ring proto LL nchannels 1 time_us 7.800057\n"),
            std::string::npos);
  EXPECT_NE(result.out.find("\nALGO Reduce 8589934592 : algo Ring proto Simple nchannels 24 time_us "),
            std::string::npos);
}

}  // namespace
}  // namespace linkscope
