#include <gtest/gtest.h>

#include "runtime/nccl_log.hpp"
#include "support/run_command.hpp"

namespace linkscope::runtime {
namespace {

TEST(NcclLog, RealH200LogSingleProcess) {
  const std::string text = test::read_text(test::fixture("h200x2/nccl-2.28.3-info.log"));
  ASSERT_FALSE(text.empty());
  const NcclRuntimeInfo info = parse_nccl_log(text);
  ASSERT_TRUE(info.nccl_version.has_value());
  EXPECT_EQ(*info.nccl_version, "2.28.3");
  EXPECT_EQ(*info.nccl_version_full, "2.28.3+cuda13.0");
  EXPECT_EQ(info.network, "Socket");
  EXPECT_EQ(info.nranks, 2);
  EXPECT_EQ(info.nnodes, 1);
  EXPECT_EQ(info.coll_channels, 24);
  EXPECT_EQ(info.nvls_channels, 0);
  EXPECT_EQ(info.p2p_channels, 32);
  EXPECT_EQ(info.p2p_channels_per_peer, 32);
  // 24 channels in each direction, all P2P with direct pointers (one process drives both GPUs).
  ASSERT_EQ(info.connections.size(), 48u);
  for (const auto& c : info.connections) {
    EXPECT_EQ(c.transport, "P2P/direct pointer");
    EXPECT_EQ(c.detail, "");
    EXPECT_EQ(c.conn_index, 0);
    EXPECT_EQ(c.peer, 1 - c.rank);
  }
  EXPECT_EQ(info.connections.front().rank, 1);
  EXPECT_EQ(info.connections.front().channel, 0);
  EXPECT_EQ(dominant_transport(info), "P2P/direct pointer");
  const auto summary = transport_summary(info);
  ASSERT_EQ(summary.size(), 1u);
  EXPECT_EQ(summary[0].connections, 48);
  // NCCL's model: NVL between the two GPUs through the NVSwitch.
  ASSERT_EQ(info.gpu_paths.size(), 2u);
  EXPECT_EQ(info.gpu_paths[0].type, "NVL");
  EXPECT_DOUBLE_EQ(info.gpu_paths[0].bandwidth, 370.8);
  EXPECT_EQ(info.gpu_paths[0].hops, 2);
  EXPECT_EQ(widest_gpu_path_type(info), "NVL");
  ASSERT_EQ(info.graphs.size(), 2u);
  EXPECT_EQ(info.graphs[0].pattern_name, "Ring");
  EXPECT_EQ(info.graphs[0].channels, 12);
  EXPECT_EQ(info.graphs[0].type_intra, "NVL");
  EXPECT_EQ(info.graphs[1].pattern_name, "BalancedTree");
  EXPECT_EQ(info.environment.at("NCCL_NVLS_ENABLE"), "0");
  EXPECT_EQ(info.environment.at("NCCL_TOPO_DUMP_FILE"), "/root/out/r/topo.xml");
  EXPECT_EQ(info.comm_config.at("nvlinkCentricSched"), "1");
  ASSERT_EQ(info.algorithms_connected.size(), 1u);
  EXPECT_EQ(info.algorithms_connected[0], "Ring");
  EXPECT_TRUE(info.warnings.empty());
}

TEST(NcclLog, OlderLogWithoutConnectionsAndInterleavedLines) {
  const std::string text =
      test::read_text(test::fixture("topo/a100x2-nvlink-bcm-gen5-spr.nccl-2.23.4-info.log"));
  ASSERT_FALSE(text.empty());
  const NcclRuntimeInfo info = parse_nccl_log(text);
  EXPECT_EQ(info.nccl_version, "2.23.4");
  EXPECT_EQ(info.network, "IB");
  EXPECT_TRUE(info.connections.empty());
  EXPECT_FALSE(dominant_transport(info).has_value());
  EXPECT_EQ(widest_gpu_path_type(info), "NVL");
  EXPECT_DOUBLE_EQ(info.gpu_paths.front().bandwidth, 240.0);
}

TEST(NcclLog, SharedMemoryLines) {
  const std::string text =
      "h:1:2 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct\n"
      "h:1:2 [0] NCCL INFO Channel 01 : 0[0] -> 1[1] via SHM/direct/direct\n"
      "h:1:3 [1] NCCL INFO Channel 00 : 1[1] -> 0[0] via SHM/CE/direct\n"
      "h:1:2 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1.\n";
  const NcclRuntimeInfo info = parse_nccl_log(text);
  ASSERT_EQ(info.connections.size(), 3u);
  EXPECT_EQ(info.connections[0].transport, "SHM");
  EXPECT_EQ(info.connections[0].detail, "direct/direct");
  EXPECT_EQ(info.connections[0].conn_index, -1);
  EXPECT_EQ(transport_label(info.connections[2]), "SHM/CE");
  EXPECT_EQ(dominant_transport(info), "SHM");
  EXPECT_EQ(info.environment.at("NCCL_P2P_DISABLE"), "1");
}

TEST(NcclLog, NetworkSocketAndInfinibandLines) {
  const std::string text =
      "n1:10:20 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [send] via NET/Socket/0\n"
      "n1:10:21 [1] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [receive] via NET/Socket/0\n"
      "n2:11:22 [0] NCCL INFO Channel 01/0 : 8[0] -> 0[0] [receive] via NET/IB/3/GDRDMA\n"
      "n2:11:22 [0] NCCL INFO Channel 01/0 : 0[0] -> 8[0] [send] via NET/IB/3(1)/GDRDMA/Shared\n"
      "n2:11:22 [0] NCCL INFO Channel 01/0 : 0[0] -> 8[0] [send] via NET/IB/3(1)/GDRDMA/Shared\n";
  const NcclRuntimeInfo info = parse_nccl_log(text);
  ASSERT_EQ(info.connections.size(), 4u);  // the repeated line is counted once
  EXPECT_EQ(info.connections[0].transport, "NET/Socket");
  EXPECT_EQ(info.connections[0].detail, "0");
  EXPECT_EQ(info.connections[0].side, "send");
  EXPECT_EQ(info.connections[1].side, "receive");
  EXPECT_EQ(info.connections[2].transport, "NET/IB");
  EXPECT_EQ(info.connections[2].rank, 8);
  EXPECT_EQ(transport_label(info.connections[2]), "NET/IB/GDRDMA");
  EXPECT_EQ(info.connections[3].detail, "3(1)/GDRDMA/Shared");
  const auto summary = transport_summary(info);
  ASSERT_EQ(summary.size(), 2u);
  EXPECT_EQ(summary[0].label, "NET/Socket");
  EXPECT_EQ(summary[1].label, "NET/IB/GDRDMA");
}

TEST(NcclLog, P2pIpcAndCumemVariants) {
  const std::string text =
      "h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read\n"
      "h:1:2 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/IPC\n"
      "h:1:2 [0] NCCL INFO Channel 02/1 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
      "h:1:2 [0] NCCL INFO Channel 03/1 : 0[0] -> 1[1] via P2P/CUMEM/CE\n"
      "h:1:2 [0] NCCL INFO Channel 04/0 : 0[0] -> 2[2] via P2P/indirect/1[1]\n"
      "h:1:2 [0] NCCL INFO Channel 05/24 : 0 1\n";  // ring order line, not a connection
  const NcclRuntimeInfo info = parse_nccl_log(text);
  ASSERT_EQ(info.connections.size(), 5u);
  EXPECT_EQ(transport_label(info.connections[0]), "P2P/IPC/read");
  EXPECT_EQ(transport_label(info.connections[1]), "P2P/IPC");
  EXPECT_EQ(info.connections[2].transport, "P2P/CUMEM");
  EXPECT_EQ(info.connections[2].conn_index, 1);
  EXPECT_EQ(info.connections[3].detail, "CE");
  EXPECT_EQ(info.connections[4].transport, "P2P/indirect");
  EXPECT_EQ(info.connections[4].detail, "1[1]");
}

TEST(NcclLog, WorstGpuPathAndWarnings) {
  const std::string text =
      "h:1:1 [0] NCCL INFO GPU/0-1000 :GPU/0-1000 (0/5000.0/LOC) GPU/0-2000 (2/24.0/PXB) GPU/0-3000 (3/20.0/SYS) \n"
      "h:1:1 [0] NCCL INFO GPU/0-2000 :GPU/0-1000 (2/24.0/PXB) GPU/0-2000 (0/5000.0/LOC) \n"
      "h:1:1 [0] NCCL WARN Cuda failure 'out of memory'\n"
      "garbage line without a prefix\n"
      "h:1:1 [0] NCCL INFO 4 coll channels, 0 collnet channels, 0 nvls channels, 4 p2p channels, 2 p2p channels per peer\n";
  const NcclRuntimeInfo info = parse_nccl_log(text);
  EXPECT_EQ(info.gpu_paths.size(), 3u);
  EXPECT_EQ(widest_gpu_path_type(info), "SYS");
  ASSERT_EQ(info.warnings.size(), 1u);
  EXPECT_EQ(info.warnings[0], "Cuda failure 'out of memory'");
  EXPECT_EQ(info.coll_channels, 4);
  EXPECT_EQ(info.nccl_lines, 4u);
}

TEST(NcclLog, EmptyAndNonNcclTextGiveNoFacts) {
  const NcclRuntimeInfo empty = parse_nccl_log("");
  EXPECT_FALSE(empty.nccl_version.has_value());
  EXPECT_EQ(empty.nccl_lines, 0u);
  const NcclRuntimeInfo junk = parse_nccl_log(std::string(100000, 'x') + "\n\n\x01\x02 NCCL INFO Channel x");
  EXPECT_TRUE(junk.connections.empty());
}

TEST(NcclLog, RunJsonFollowsTheContract) {
  const std::string text = test::read_text(test::fixture("h200x2/nccl-2.28.3-info.log"));
  model::RuntimeRun run;
  run.context = "coll all_reduce";
  run.env = {{"NCCL_NVLS_ENABLE", "0"}};
  run.info = parse_nccl_log(text);
  const auto json = model::to_json(run);
  EXPECT_EQ(json.at("context"), "coll all_reduce");
  EXPECT_EQ(json.at("status"), "recorded");
  EXPECT_EQ(json.at("nccl_version"), "2.28.3");
  EXPECT_EQ(json.at("transport"), "P2P/direct pointer");
  EXPECT_EQ(json.at("channels").at("coll"), 24);
  EXPECT_EQ(json.at("connections").size(), 48u);
  EXPECT_EQ(json.at("connections")[0].at("detail"), nullptr);
  EXPECT_EQ(json.at("env").at("NCCL_NVLS_ENABLE"), "0");
  EXPECT_EQ(json.at("algorithm_env"), nullptr);
  EXPECT_EQ(json.at("gpu_paths")[0].at("type"), "NVL");
}

}  // namespace
}  // namespace linkscope::runtime

namespace linkscope::runtime {
namespace {

TEST(NcclLog, WorstPathTypeFollowsNcclsOrder) {
  EXPECT_EQ(worst_path_type({"NVL", "PIX"}), "PIX");
  EXPECT_EQ(worst_path_type({"PHB", "PXN", "C2C"}), "PHB");
  EXPECT_EQ(worst_path_type({"NVL", "bogus"}), "NVL");
  EXPECT_FALSE(worst_path_type({}).has_value());
  EXPECT_FALSE(worst_path_type({"bogus"}).has_value());
}

}  // namespace
}  // namespace linkscope::runtime
