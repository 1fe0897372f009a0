// The runtime parser over the log lines of each NCCL version linkscope models. The excerpts are written for these
// tests from the format strings at NCCL's tags (v2.28.9-1, v2.29.7-1, v2.30.3-1, v2.30.7-1: init.cc, paths.cc,
// transport/shm.cc, transport/net.cc, transport/nvls.cc, mnnvl.cc, net_ib/common.h, misc/ibvwrap.cc, graph/xml.h);
// they are not captured from a run.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/json_read.hpp"
#include "runtime/nccl_log.hpp"

namespace linkscope::runtime {
namespace {

// "rank 0 HCA 1a on (gdr-line)": one GPUDirect RDMA fact a string, so a test states all of them at once.
std::vector<std::string> gdr_facts(const NcclRuntimeInfo& info) {
  std::vector<std::string> facts;
  for (const auto& g : info.gpu_direct) {
    facts.push_back("rank " + std::to_string(g.rank) + " " + g.net + (g.enabled ? " on" : " off") + " (" + g.source + ")");
  }
  return facts;
}

// "rank 0 cuda 0 nvml 3 bus 18000" per Init line.
std::vector<std::string> rank_devices(const NcclRuntimeInfo& info) {
  std::vector<std::string> out;
  for (const auto& d : info.rank_devices) {
    out.push_back("rank " + std::to_string(d.rank) + " cuda " + std::to_string(d.cuda_dev) + " nvml " +
                  std::to_string(d.nvml_dev) + " bus " + d.bus_id);
  }
  return out;
}

using Facts = std::vector<std::string>;

const NcclConnection* connection(const NcclRuntimeInfo& info, int rank, int peer) {
  for (const auto& c : info.connections) {
    if (c.rank == rank && c.peer == peer) return &c;
  }
  return nullptr;
}

TEST(NcclLogVersions, Nccl2289) {
  const NcclRuntimeInfo info = parse_nccl_log(
      "h:1:1 [0] NCCL INFO ncclCommInitAll comm 0x5581a0 rank 0 nranks 2 cudaDev 0 nvmlDev 3 busId 18000 commId 0x6a1b2c - Init START\n"
      "h:1:1 [0] NCCL INFO GPU Direct RDMA Enabled for GPU 0 / HCA 1a (distance 4 <= 5), read 1 mode Default\n"
      "h:1:1 [0] NCCL INFO GPU Direct RDMA Disabled for GPU 1 / HCA 1a (distance 6 > 5)\n"
      "h:1:1 [0] NCCL INFO NVLS multicast support is available on dev 0 (NVLS_NCHANNELS 16)\n"
      "h:1:1 [0] NCCL INFO MNNVL 1 cliqueId 7f cliqueSize 4 cliqueRank 2\n"
      "h:1:1 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct\n"
      "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 2[0] [send] via NET/IB/0/GDRDMA\n"
      "h:1:1 [0] NCCL INFO ncclCommInitAll comm 0x5581a0 rank 0 nranks 2 cudaDev 0 nvmlDev 3 busId 18000 commId 0x6a1b2c - Init COMPLETE\n");
  EXPECT_EQ(rank_devices(info), Facts{"rank 0 cuda 0 nvml 3 bus 18000"});  // START and COMPLETE: one
  EXPECT_EQ(info.nranks, 2);  // no "comm ... nRanks" line: the Init line's count
  // The per-GPU decision lines are the GDR facts; the connections are not asked.
  EXPECT_EQ(gdr_facts(info), (Facts{"rank 0 HCA 1a on (gdr-line)", "rank 1 HCA 1a off (gdr-line)"}));
  EXPECT_EQ(info.nvls.supported, true);
  EXPECT_EQ(info.nvls.channels, 16);
  EXPECT_FALSE(info.nvls.chunk_size);
  ASSERT_TRUE(info.mnnvl);
  EXPECT_EQ(info.mnnvl->clique_id, "7f");
  EXPECT_EQ(info.mnnvl->clique_rank, 2);
  EXPECT_FALSE(info.mnnvl->nvl_domain_size);
  const NcclConnection* shm = connection(info, 0, 1);
  ASSERT_NE(shm, nullptr);
  EXPECT_EQ(shm->transport, "SHM");
  EXPECT_EQ(shm->detail, "direct/direct");
  EXPECT_TRUE(info.hints.empty());
}

TEST(NcclLogVersions, Nccl2297RankPrefixAndGdrLines) {
  const NcclRuntimeInfo info = parse_nccl_log(
      "h:1:1 [0] NCCL INFO [Rank 1] ncclCommInitRank comm 0x55d0 rank 1 nranks 4 cudaDev 1 nvmlDev 1 busId 2a000 commId 0x1f - Init START\n"
      "h:1:1 [0] NCCL INFO GPU Direct RDMA Enabled for GPU/0-172032 (rank 1) - NET/0-1 (distance 4 <= 5, read 1, mode Default)\n"
      "h:1:1 [0] NCCL INFO GPU Direct RDMA Disabled for GPU/0-172032 (rank 1) - NET/0-0 (distance 6 > 5)\n"
      "h:1:1 [0] NCCL INFO NVLS multicast support is not available on dev 1 (NVLS_NCHANNELS 0)\n"
      "h:1:1 [0] NCCL INFO Channel 00/0 : 1[1] -> 5[1] [send] via NET/IB/1\n");
  EXPECT_EQ(rank_devices(info), Facts{"rank 1 cuda 1 nvml 1 bus 2a000"});
  EXPECT_EQ(gdr_facts(info), (Facts{"rank 1 NET/0-1 on (gdr-line)", "rank 1 NET/0-0 off (gdr-line)"}));
  EXPECT_EQ(info.nvls.supported, false);
  EXPECT_EQ(info.nvls.channels, 0);
}

TEST(NcclLogVersions, Nccl2303GdrFromConnectionsAndNvlsTuning) {
  // 2.30.3 prints the per-GPU GDR lines at TRACE only: the NET connections carry the decision.
  const NcclRuntimeInfo info = parse_nccl_log(
      "h:1:1 [0] NCCL INFO NVLS multicast support is available on dev 0\n"
      "h:1:1 [0] NCCL INFO NVLS tuning: nChannels 24 chunkSize 131072 treeMaxChunkSize 65536\n"
      "h:1:1 [0] NCCL INFO MNNVL 1 cliqueId 1a2b cliqueSize 8 cliqueRank 3 nvlDomainSize 72\n"
      "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA\n"
      "h:1:1 [0] NCCL INFO Channel 01/0 : 0[0] -> 8[0] [send] via NET/IB/0/GDRDMA\n"
      "h:1:1 [0] NCCL INFO Channel 00/0 : 8[0] -> 0[0] [receive] via NET/IB/0/GDRDMA(PCI)\n"
      "h:1:2 [1] NCCL INFO Channel 00/0 : 1[1] -> 9[1] [send] via NET/IB/1(3)/GDRDMA/Shared\n"
      "h:1:4 [2] NCCL INFO Channel 00/0 : 2[2] -> 10[2] [send] via NET/Socket/2\n"
      "h:1:5 [4] NCCL INFO Channel 00/0 : 4[4] -> 12[4] [send] via NET/AWS Libfabric/4/GDRDMA\n");
  EXPECT_EQ(info.nvls.supported, true);
  EXPECT_EQ(info.nvls.channels, 24);
  EXPECT_EQ(info.nvls.chunk_size, 131072);
  EXPECT_EQ(info.nvls.tree_max_chunk_size, 65536);
  ASSERT_TRUE(info.mnnvl);
  EXPECT_EQ(info.mnnvl->clique_size, 8);
  EXPECT_EQ(info.mnnvl->nvl_domain_size, 72);
  // Rank 0's send and receive lines on NET/IB/0 are one fact; PXN "1(3)": rank 3's GPU reaches the NIC for rank 1;
  // another net plugin's name keeps its space.
  EXPECT_EQ(gdr_facts(info), (Facts{"rank 0 NET/IB/0 on (connection)", "rank 3 NET/IB/1 on (connection)",
                                    "rank 2 NET/Socket/2 off (connection)", "rank 4 NET/AWS Libfabric/4 on (connection)"}));
}

TEST(NcclLogVersions, ReceiveLinesNameTheLocalRankSecond) {
  const NcclRuntimeInfo info =
      parse_nccl_log("h:1:1 [0] NCCL INFO Channel 00/0 : 8[0] -> 0[0] [receive] via NET/IB/2/GDRDMA\n");
  EXPECT_EQ(gdr_facts(info), Facts{"rank 0 NET/IB/2 on (connection)"});
}

TEST(NcclLogVersions, Nccl2307ShmDirect) {
  const NcclRuntimeInfo info = parse_nccl_log("h:1:1 [0] NCCL INFO Channel 03 : 0[0] -> 1[1] via SHM/direct\n");
  ASSERT_EQ(info.connections.size(), 1u);
  EXPECT_EQ(info.connections[0].transport, "SHM");
  EXPECT_EQ(info.connections[0].detail, "direct");
  EXPECT_EQ(info.connections[0].channel, 3);
  EXPECT_EQ(info.connections[0].conn_index, -1);
  EXPECT_EQ(dominant_transport(info), "SHM");
}

TEST(NcclLogVersions, Nccl2307HintsAsNcclPrintsThem) {
  // net_ib/common.h: a LOC_PROT_ERR completion prints the ACS hint, then (the switch falls through) the
  // same-instance and IB-timeout hints. Another thread's line interleaves; QP errors of other threads follow (ibvwrap.cc
  // warns, then hints: the warning ends a burst, so the second GID hint is a hint of its own, merged with the first).
  const NcclRuntimeInfo info = parse_nccl_log(
      "h:1:7 [0] NCCL INFO HINT: In many cases this error occurs when ACS is enabled which would break GPU Direct RDMA protocol.\n"
      "h:1:7 [0] NCCL INFO HINT: To confirm and fix the problem, you can set NCCL_NET_GDR_LEVEL=0 to disable ACS following vendor documentation.\n"
      "h:1:9 [1] NCCL INFO Channel 00/0 : 1[1] -> 9[1] [send] via NET/IB/1/GDRDMA\n"
      "h:1:7 [0] NCCL INFO HINT: In many cases this error occurs when NIC on the same instance cannot talk to each other.\n"
      "h:1:7 [0] NCCL INFO HINT: In many cases this error occurs when the NCCL_IB_TIMEOUT is set too short.\n"
      "h:1:7 [0] NCCL INFO HINT: Default value is 20, which is ~30 seconds before error.\n"
      "h:1:7 [0] NCCL INFO HINT: To confirm, try increasing the value of NCCL_IB_TIMEOUT and see if the error persists.\n"
      "h:1:7 [0] NCCL INFO HINT: See https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ib-timeout for more information.\n"
      "h:1:7 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<43121> with status=4 opcode=0 len=0 vendor err 81 (Recv)\n"
      "h:2:3 [2] NCCL INFO HINT: In many cases this error occurs when NICs are not cross-rail connected.\n"
      "h:2:3 [2] NCCL INFO HINT: To confirm, you can set NCCL_CROSS_NIC=0 to disable cross-rail communication.\n"
      "h:2:3 [2] NCCL INFO HINT: See https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-cross-nic for more information.\n"
      "h:3:3 [0] NCCL WARN Call to ibv_modify_qp failed with 22 Invalid argument, on dev mlx5_0:1, curr state INIT, next state RTR, local GID index 9, local GID N/A, remote GID N/A\n"
      "h:3:3 [0] NCCL INFO HINT: In many cases this error occurs when the incorrect GID index is forced by NCCL_IB_GID_INDEX\n"
      "h:3:3 [0] NCCL INFO HINT: To confirm and fix the problem, you can set NCCL_IB_GID_INDEX=-1 to enable automatic detection.\n"
      "h:4:3 [0] NCCL INFO HINT: In many cases this issue indicates missing or faulty information in the provided topology file.\n"
      "h:4:3 [0] NCCL INFO HINT: To confirm, set NCCL_TOPO_DUMP_FILE=topo.xml to produce the topology NCCL has detected and compare to the one provided.\n"
      "h:3:3 [0] NCCL WARN Call to ibv_modify_qp failed with 22 Invalid argument, on dev mlx5_0:1, curr state INIT, next state RTR, local GID index 9, local GID N/A, remote GID N/A\n"
      "h:3:3 [0] NCCL INFO HINT: In many cases this error occurs when the incorrect GID index is forced by NCCL_IB_GID_INDEX\n"
      "h:3:3 [0] NCCL INFO HINT: To confirm and fix the problem, you can set NCCL_IB_GID_INDEX=-1 to enable automatic detection.\n");
  ASSERT_EQ(info.hints.size(), 6u);
  EXPECT_EQ(info.hints[0].kind, "acs-gdr");
  EXPECT_TRUE(info.hints[0].primary);
  ASSERT_EQ(info.hints[0].advice.size(), 1u);
  EXPECT_EQ(info.hints[0].advice[0],
            "To confirm and fix the problem, you can set NCCL_NET_GDR_LEVEL=0 to disable ACS following vendor documentation.");
  EXPECT_EQ(info.hints[1].kind, "nic-same-instance");
  EXPECT_FALSE(info.hints[1].primary);  // printed by the fall-through, not the cause
  EXPECT_TRUE(info.hints[1].advice.empty());
  EXPECT_EQ(info.hints[2].kind, "ib-timeout");
  EXPECT_FALSE(info.hints[2].primary);
  EXPECT_EQ(info.hints[2].advice.size(), 3u);
  EXPECT_EQ(info.hints[3].kind, "cross-rail");
  EXPECT_TRUE(info.hints[3].primary);
  EXPECT_EQ(info.hints[4].kind, "ib-gid-index");
  EXPECT_EQ(info.hints[4].count, 2);  // the same hint twice: one entry
  EXPECT_EQ(info.hints[5].kind, "topology-file");
  EXPECT_EQ(info.hints[5].text,
            "In many cases this issue indicates missing or faulty information in the provided topology file.");
  EXPECT_EQ(info.warnings.size(), 3u);
  EXPECT_EQ(info.connections.size(), 1u);  // HINT lines are not other facts, other threads' lines still are
}

TEST(NcclLogVersions, UnknownHintTextIsKeptAsOther) {
  const NcclRuntimeInfo info = parse_nccl_log("h:1:1 [0] NCCL INFO HINT: Something NCCL 2.31 says.\n");
  ASSERT_EQ(info.hints.size(), 1u);
  EXPECT_EQ(info.hints[0].kind, "other");
  EXPECT_EQ(info.hints[0].text, "Something NCCL 2.31 says.");
}

TEST(NcclLogVersions, OutOfRangeNumbersDropTheLineNotTheLog) {
  const NcclRuntimeInfo info = parse_nccl_log(
      "h:1:1 [0] NCCL INFO Channel 99999999999/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"
      "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 4294967297[1] via P2P/CUMEM/read\n"
      "h:1:1 [0] NCCL INFO [Rank 99999999999] x comm 0x1 rank 99999999999 nranks 2 cudaDev 0 nvmlDev 0 busId 1 commId 0x1 - Init START\n"
      "h:1:1 [0] NCCL INFO NVLS tuning: nChannels 99999999999 chunkSize 1 treeMaxChunkSize 1\n"
      "h:1:1 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n");
  ASSERT_EQ(info.connections.size(), 1u);
  EXPECT_EQ(info.connections[0].channel, 1);
  EXPECT_TRUE(info.rank_devices.empty());
  EXPECT_FALSE(info.nvls.channels);
  EXPECT_EQ(info.nvls.chunk_size, 1);
}

TEST(NcclLogVersions, NewFactsRoundTripThroughTheRunJson) {
  model::RuntimeRun run;
  run.context = "cluster sendrecv";
  run.info = parse_nccl_log(
      "h:1:1 [0] NCCL INFO [Rank 0] ncclCommInitRank comm 0x55d0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0x1f - Init START\n"
      "h:1:1 [0] NCCL INFO NVLS tuning: nChannels 24 chunkSize 131072 treeMaxChunkSize 65536\n"
      "h:1:1 [0] NCCL INFO MNNVL 1 cliqueId 7f cliqueSize 8 cliqueRank 0 nvlDomainSize 72\n"
      "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n"
      "h:1:7 [0] NCCL INFO HINT: In many cases this error occurs when ACS is enabled which would break GPU Direct RDMA protocol.\n"
      "h:1:7 [0] NCCL INFO HINT: To confirm and fix the problem, you can set NCCL_NET_GDR_LEVEL=0 to disable ACS following vendor documentation.\n"
      "h:1:7 [0] NCCL INFO HINT: In many cases this error occurs when NIC on the same instance cannot talk to each other.\n");
  ASSERT_EQ(run.info.hints.size(), 2u);
  const nlohmann::json document = model::to_json(run);
  EXPECT_EQ(document["hints"][0]["kind"], "acs-gdr");
  EXPECT_EQ(document["gpu_direct"][0]["source"], "connection");
  EXPECT_EQ(document["nvls"]["tree_max_chunk_size"], 65536);
  EXPECT_EQ(document["mnnvl"]["nvl_domain_size"], 72);
  const model::RuntimeRun back = model::runtime_run_from_json(model::JsonReader::root(document, "run.json"));
  EXPECT_EQ(model::to_json(back), document);
  EXPECT_TRUE(back.extra.is_null() || back.extra.empty()) << back.extra.dump();
  ASSERT_EQ(back.info.hints.size(), 2u);
  EXPECT_FALSE(back.info.hints[1].primary);
  EXPECT_EQ(back.info.hints[0].advice.size(), 1u);
  EXPECT_EQ(back.info.rank_devices[0].bus_id, "18000");
  ASSERT_TRUE(back.info.mnnvl);
  EXPECT_EQ(back.info.mnnvl->clique_id, "7f");
  // A run without these lines writes empty lists and nulls, and reads back the same.
  model::RuntimeRun plain;
  plain.info = parse_nccl_log("h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n");
  const nlohmann::json plain_document = model::to_json(plain);
  EXPECT_TRUE(plain_document["mnnvl"].is_null());
  EXPECT_TRUE(plain_document["nvls"]["supported"].is_null());
  EXPECT_EQ(model::to_json(model::runtime_run_from_json(model::JsonReader::root(plain_document, "run.json"))),
            plain_document);
}

}  // namespace
}  // namespace linkscope::runtime
