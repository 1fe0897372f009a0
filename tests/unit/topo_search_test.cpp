// NCCL 2.28.9's graph search, channel setup and log lines for small topologies, and the rules behind them. The
// expected values were checked against NCCL 2.28.9's own search.cc/connect.cc/tuning.cc on the same XMLs.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "core/environment.hpp"
#include "topo/communicator_model.hpp"
#include "topo/search_log_printer.hpp"
#include "topo/topology_model.hpp"
#include "support/model_versions.hpp"

namespace linkscope::topo {
namespace {

// `gpus` GPUs of generation `sm` behind one PCIe switch of one Intel CPU, each GPU at `speed` x `width`.
std::string pcie_switch_xml(int gpus, int sm, const char* speed, int width) {
  std::string xml =
      "<system version=\"1\">\n"
      "  <cpu host_hash=\"0x1\" numaid=\"0\" affinity=\"ff\" arch=\"x86_64\" vendor=\"GenuineIntel\" familyid=\"6\" "
      "modelid=\"79\">\n"
      "    <pci busid=\"0000:10:00.0\" class=\"0x060400\" vendor=\"0x10b5\" device=\"0x8747\" "
      "subsystem_vendor=\"0x10b5\" subsystem_device=\"0x8747\" link_speed=\"8.0 GT/s PCIe\" link_width=\"16\">\n";
  for (int g = 0; g < gpus; ++g) {
    xml += "      <pci busid=\"0000:1" + std::to_string(g + 1) +
           ":00.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x1\" subsystem_vendor=\"0x10de\" "
           "subsystem_device=\"0x1\" link_speed=\"" +
           speed + "\" link_width=\"" + std::to_string(width) + "\">\n        <gpu dev=\"" + std::to_string(g) +
           "\" sm=\"" + std::to_string(sm) + "\" rank=\"" + std::to_string(g) + "\" gdr=\"1\"/>\n      </pci>\n";
  }
  return xml + "    </pci>\n  </cpu>\n</system>\n";
}

struct Modelled {
  TopologyModel topology;
  CommunicatorModel comm;
};

Modelled model_of(const std::string& xml, std::map<std::string, std::string> variables = {}) {
  const auto env = Environment::from_map(std::move(variables));
  Modelled m{load_topology_string(xml, "test.xml", env, test::nccl_2_28_9()), {}};
  m.comm = model_communicator(m.topology, resolve_comm_params(env));
  return m;
}

bool has_line(const std::vector<std::string>& lines, const std::string& line) {
  return std::find(lines.begin(), lines.end(), line) != lines.end();
}

TEST(TopoSearch, PcieSwitchRingAndTree) {
  // 4 GPUs at Gen3 x8 (6 GB/s) under one switch: one channel at 6 GB/s in PCI order, for ring and tree.
  const auto m = model_of(pcie_switch_xml(4, 80, "8.0 GT/s PCIe", 8));
  ASSERT_TRUE(m.comm.unavailable.empty()) << m.comm.unavailable;
  EXPECT_EQ(m.comm.ring.pattern, kPatternRing);
  EXPECT_EQ(m.comm.ring.n_channels, 1);
  EXPECT_EQ(m.comm.ring.bw_intra, 6.0f);
  EXPECT_EQ(m.comm.ring.type_intra, kPathPix);
  EXPECT_EQ(m.comm.ring.same_channels, 1);
  EXPECT_EQ(m.comm.ring.channels, (std::vector<std::vector<int>>{{0, 1, 2, 3}}));
  EXPECT_EQ(m.comm.tree.pattern, kPatternBalancedTree);
  EXPECT_EQ(m.comm.tree.n_channels, 1);
  // Each search channel becomes two; rank 0 receives from the ring's last rank and sends to rank 1.
  EXPECT_EQ(m.comm.channels.coll_channels, 2);
  EXPECT_EQ(m.comm.channels.rings, (std::vector<std::vector<int>>{{0, 1, 2, 3}, {0, 1, 2, 3}}));
  EXPECT_EQ(m.comm.channels.ring_prev[1][0], 3);
  EXPECT_EQ(m.comm.channels.ring_next[1][0], 1);
  EXPECT_FALSE(m.comm.channels.all_nvlink);
  EXPECT_EQ(m.comm.channels.p2p_chunk_size, 1 << 17);  // not all NVLink: the PCI chunk
  const auto lines = nccl_search_log_lines(m.topology, m.comm);
  EXPECT_TRUE(
      has_line(lines, "Pattern 4, crossNic 0, nChannels 1, bw 6.000000/6.000000, type PIX/PIX, sameChannels 1"));
  EXPECT_TRUE(has_line(lines, " 0 : GPU/0-11000 GPU/0-12000 GPU/0-13000 GPU/0-14000"));
  EXPECT_TRUE(has_line(lines, "Channel 01/02 : 0 1 2 3"));
  EXPECT_TRUE(has_line(lines, "Ring 01 : 3 -> 0 -> 1"));
  EXPECT_TRUE(has_line(lines, "Trees [0] 1/-1/-1->0->-1 [1] 1/-1/-1->0->-1"));
  EXPECT_TRUE(has_line(lines, "P2P Chunksize set to 131072"));
}

TEST(TopoSearch, NothingFitsFallsBackToTheSimpleOrder) {
  // PCIe Gen1 x1 (0.1875 GB/s) is below every speed NCCL tries.
  const auto m = model_of(pcie_switch_xml(2, 80, "2.5 GT/s PCIe", 1));
  for (const GraphSearchResult* graph : {&m.comm.ring, &m.comm.tree}) {
    EXPECT_TRUE(graph->fell_back);
    EXPECT_EQ(graph->n_channels, 1);
    EXPECT_EQ(graph->bw_intra, 0.1f);
    EXPECT_EQ(graph->type_intra, kPathSys);
    EXPECT_EQ(graph->type_inter, kPathSys);
  }
  const auto lines = nccl_search_log_lines(m.topology, m.comm);
  ASSERT_GE(lines.size(), 2u);
  EXPECT_EQ(lines[0], "Could not find a path for pattern 4, falling back to simple order");
  EXPECT_EQ(lines[1], "Pattern 4, crossNic 0, nChannels 1, bw 0.100000/0.100000, type SYS/SYS, sameChannels 1");
}

TEST(TopoSearch, OneGpuRingsUpToTheMaximumAndNoTuner) {
  const auto m = model_of(pcie_switch_xml(1, 90, "16.0 GT/s PCIe", 16));
  ASSERT_TRUE(m.comm.unavailable.empty());
  EXPECT_EQ(m.comm.ring.n_channels, 32);  // a GPU to itself never runs out of bandwidth
  EXPECT_EQ(m.comm.ring.bw_intra, 60.0f);
  EXPECT_EQ(m.comm.ring.type_intra, kPathLoc);
  EXPECT_EQ(m.comm.tree.pattern, kPatternTree);  // one GPU: NCCL asks for a plain tree
  EXPECT_EQ(m.comm.channels.coll_channels, 64);
  EXPECT_FALSE(m.comm.tuning.computed);        // ncclTopoTuneModel returns before its tables
  EXPECT_TRUE(predict_collective(m.comm, kFuncAllReduce).empty());  // NCCL copies locally
  const auto lines = nccl_search_log_lines(m.topology, m.comm);
  EXPECT_EQ(lines.back(),
            "64 coll channels, 64 collnet channels, 0 nvls channels, 64 p2p channels, 64 p2p channels per peer");
  EXPECT_TRUE(std::none_of(lines.begin(), lines.end(),
                           [](const std::string& line) { return line.rfind("threadThresholds", 0) == 0; }));
}

TEST(TopoSearch, ChannelLimitsFromTheEnvironment) {
  auto m = model_of(pcie_switch_xml(4, 80, "8.0 GT/s PCIe", 8), {{"NCCL_MAX_NCHANNELS", "0"}});
  EXPECT_EQ(m.comm.channels.coll_channels, 1);
  auto lines = nccl_search_log_lines(m.topology, m.comm);
  EXPECT_TRUE(has_line(lines, "NCCL_MAX_NCHANNELS set by environment to 0."));
  EXPECT_TRUE(has_line(lines, "User asked for a maximum of 0 channels, setting it to 1"));

  // NCCL_MIN_NCHANNELS repeats the channels in order; the new name wins over NCCL_MIN_NRINGS.
  m = model_of(pcie_switch_xml(4, 80, "8.0 GT/s PCIe", 8), {{"NCCL_MIN_NCHANNELS", "5"}, {"NCCL_MIN_NRINGS", "9"}});
  EXPECT_EQ(m.comm.channels.coll_channels, 5);
  EXPECT_EQ(m.comm.channels.rings.size(), 5u);
  lines = nccl_search_log_lines(m.topology, m.comm);
  EXPECT_TRUE(has_line(lines, "NCCL_MIN_NRINGS set by environment to 9."));
  EXPECT_TRUE(has_line(lines, "Channel 04/05 : 0 1 2 3"));

  // NCCL_MAX_CTAS caps like the communicator config does.
  m = model_of(pcie_switch_xml(4, 80, "8.0 GT/s PCIe", 8), {{"NCCL_MAX_CTAS", "1"}});
  EXPECT_EQ(m.comm.channels.coll_channels, 1);
}

TEST(TopoSearch, RanksMustBeEveryGpuOnce) {
  std::string xml = pcie_switch_xml(2, 80, "8.0 GT/s PCIe", 8);
  xml.replace(xml.find("rank=\"1\""), 8, "rank=\"0\"");
  const auto m = model_of(xml);
  EXPECT_NE(m.comm.unavailable.find("ranks must be 0..1"), std::string::npos) << m.comm.unavailable;
  EXPECT_TRUE(nccl_search_log_lines(m.topology, m.comm).empty());
  EXPECT_TRUE(predict_collective(m.comm, kFuncAllReduce).empty());
}

TEST(TopoSearch, SameInputSameSearch) {
  const std::string xml = pcie_switch_xml(4, 80, "16.0 GT/s PCIe", 16);
  const auto a = model_of(xml);
  const auto b = model_of(xml);
  EXPECT_EQ(a.comm.ring.steps, b.comm.ring.steps);
  EXPECT_EQ(render_search_log(a.topology, a.comm), render_search_log(b.topology, b.comm));
  EXPECT_GT(a.comm.ring.steps, 0);
}

}  // namespace
}  // namespace linkscope::topo
