// NCCL 2.30's host-model changes on small hand-made systems, each shown against the release before it: DEV nodes
// (2.30.3), the BFS that prefers a better path type (2.30.7), the local NET start modulo the sharing GPUs (2.30.7)
// and the topology-file HINT lines (2.30.7).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "core/environment.hpp"
#include "topo/nccl_format.hpp"
#include "topo/nccl_log_printer.hpp"
#include "topo/net_locality.hpp"
#include "topo/path_search.hpp"
#include "topo/topology_model.hpp"

namespace linkscope::topo {
namespace {

TopologyModel load_as(const std::string& xml, const NcclVersion& version) {
  return load_topology_string(xml, "t.xml", Environment::from_map({}), model_version_for(version));
}

std::string entry(const Path& path) {
  return fmt::format("({}/{}/{})", path.count, format_bw(path.bw), path_type_name(path.type));
}

// GPUs (bus 0x10+i, dev i, sm `sm`, PCIe 24 GB/s) under one PCIe switch; `nvlinks` lists pairs joined by `links`
// NVLinks each way; `nets` NICs under the same switch.
std::string system_xml(int gpus, int sm, const std::vector<std::pair<int, int>>& nvlinks, int links = 2, int nets = 0,
                       const std::string& gpu_speed = "16.0 GT/s PCIe") {
  std::string xml = "<system version=\"1\">\n  <cpu numaid=\"0\" arch=\"x86_64\" vendor=\"GenuineIntel\" familyid=\"6\" "
                    "modelid=\"85\">\n    <pci busid=\"0000:01:00.0\" class=\"0x060400\" link_speed=\"16.0 GT/s PCIe\" "
                    "link_width=\"16\">\n";
  for (int g = 0; g < gpus; ++g) {
    xml += fmt::format("      <pci busid=\"0000:{:02x}:00.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x20b0\" "
                       "link_speed=\"{}\" link_width=\"16\">\n        <gpu dev=\"{}\" sm=\"{}\" rank=\"{}\" gdr=\"1\">\n",
                       0x10 + g, gpu_speed, g, sm, g);
    for (const auto& [a, b] : nvlinks) {
      const int peer = a == g ? b : b == g ? a : -1;
      if (peer >= 0) {
        xml += fmt::format("          <nvlink target=\"0000:{:02x}:00.0\" count=\"{}\" tclass=\"0x030200\"/>\n",
                           0x10 + peer, links);
      }
    }
    xml += "        </gpu>\n      </pci>\n";
  }
  for (int n = 0; n < nets; ++n) {
    xml += fmt::format("      <pci busid=\"0000:{:02x}:00.0\" class=\"0x020000\" link_speed=\"16.0 GT/s PCIe\" "
                       "link_width=\"16\">\n        <nic>\n          <net name=\"mlx5_{}\" dev=\"{}\" speed=\"200000\" "
                       "port=\"1\" gdr=\"1\"/>\n        </nic>\n      </pci>\n",
                       0x20 + n, n, n);
  }
  xml += "    </pci>\n  </cpu>\n</system>\n";
  return xml;
}

TEST(Nccl230, DeviceNodesCarryTheLinksAndLengthenGpuPaths) {
  const std::string xml = system_xml(2, 80, {{0, 1}});
  const auto before = load_as(xml, {2, 29, 7});
  EXPECT_EQ(before.system.count(kDev), 0);
  EXPECT_EQ(entry(path_between(before.system, {kGpu, 0}, {kGpu, 1})), "(1/40.0/NVL)");

  const auto model = load_as(xml, {2, 30, 3});
  ASSERT_EQ(model.system.count(kDev), 2);
  const Node& gpu = model.system.nodes[kGpu][0];
  ASSERT_EQ(gpu.links.size(), 1u);  // only LOC to its DEV; the DEV holds the PCI link and the NVLink
  EXPECT_EQ(gpu.links[0].type, kLinkLoc);
  EXPECT_EQ(model.system.device_of(0), (NodeRef{kDev, 0}));
  EXPECT_EQ(entry(path_between(model.system, {kGpu, 0}, {kGpu, 1})), "(3/40.0/NVL)");
  EXPECT_EQ(entry(path_between(model.system, {kGpu, 0}, {kDev, 1})), "(2/40.0/NVL)");
  EXPECT_EQ(entry(path_between(model.system, {kDev, 0}, {kDev, 1})), "(1/40.0/NVL)");
  const auto block = nccl_system_block_lines(model);
  EXPECT_NE(std::find(block.begin(), block.end(), "              + PCI[24.0] - DEV/0-10000 (10de20b000000000)"),
            block.end());
  EXPECT_NE(std::find(block.begin(), block.end(), "                            + LOC[5000.0] - GPU/0-10000"),
            block.end());
}

TEST(Nccl230, NvlinkRelayGoesThroughTheMiddleDevice) {
  // 0 - 1 - 2 joined by NVLink, 0 and 2 not: 0 reaches 2 through 1's DEV (NVB), and P2P names rank 1 as relay.
  const std::string xml = system_xml(3, 80, {{0, 1}, {1, 2}});
  const auto before = load_as(xml, {2, 29, 7});
  EXPECT_EQ(entry(path_between(before.system, {kGpu, 0}, {kGpu, 2})), "(2/40.0/NVB)");
  const auto model = load_as(xml, {2, 30, 3});
  EXPECT_EQ(entry(path_between(model.system, {kGpu, 0}, {kGpu, 2})), "(4/40.0/NVB)");
  for (const auto& decision : model.p2p) {
    if (decision.src_rank == 0 && decision.dst_rank == 2) {
      EXPECT_EQ(decision.check.intermediate_rank, 1);
    }
    if (decision.src_rank == 0 && decision.dst_rank == 1) {
      EXPECT_EQ(decision.check.intermediate_rank, -1);
    }
  }
  const auto no_nvb = load_topology_string(xml, "t.xml", Environment::from_map({{"NCCL_NVB_DISABLE", "1"}}),
                                           model_version_for({2, 30, 3}));
  EXPECT_EQ(path_between(no_nvb.system, {kGpu, 0}, {kGpu, 2}).type, kPathPix);
}

TEST(Nccl230, BfsPrefersTheBetterPathTypeFrom2307) {
  // 0 and 2 share a PCIe switch (PIX, 24 GB/s) and reach each other over sm70 NVLinks through 1 (NVB, 20 GB/s), in
  // as many hops: 2.30.3 keeps the wider PCIe path, 2.30.7 the better type.
  const std::string xml = system_xml(3, 70, {{0, 1}, {1, 2}}, 1);
  EXPECT_EQ(entry(path_between(load_as(xml, {2, 30, 3}).system, {kGpu, 0}, {kGpu, 2})), "(4/24.0/PIX)");
  EXPECT_EQ(entry(path_between(load_as(xml, {2, 30, 7}).system, {kGpu, 0}, {kGpu, 2})), "(4/20.0/NVB)");
}

TEST(Nccl230, LocalNetStartsAtDevModuloTheSharingGpus) {
  // One GPU with dev 1 and two NICs beside it: before 2.30.7 it starts at NET mirror(1) = 1, from 2.30.7 at
  // 1 % 1 = 0.
  std::string xml = system_xml(1, 90, {}, 2, 2);
  xml.replace(xml.find("dev=\"0\" sm"), 7, "dev=\"1\"");
  const auto model = load_as(xml, {2, 30, 3});
  const NcclParams params = resolve_nccl_params(Environment::from_map({}));
  EXPECT_EQ(local_net_id(model.system, params, 0, 0, false), compose_id(0, 1));
  EXPECT_EQ(local_net_id(model.system, params, 0, 0, true), compose_id(0, 0));
  EXPECT_TRUE(model_version_for({2, 30, 7}).has(NcclChange::kLocalNetModuloGpus));
  EXPECT_FALSE(model_version_for({2, 30, 3}).has(NcclChange::kLocalNetModuloGpus));
}

TEST(Nccl230, TopologyFileHintsFollowEachKvFallbackFrom2307) {
  const std::string xml = system_xml(1, 90, {}, 2, 0, "");  // an empty link_speed falls back to 60
  const auto count = [](const TopologyModel& model, const std::string& prefix) {
    return std::count_if(model.info_lines.begin(), model.info_lines.end(),
                         [&](const std::string& line) { return line.rfind(prefix, 0) == 0; });
  };
  const auto before = load_as(xml, {2, 30, 3});
  EXPECT_EQ(count(before, "KV Convert to int"), 1);
  EXPECT_EQ(count(before, "HINT:"), 0);
  const auto model = load_as(xml, {2, 30, 7});
  ASSERT_EQ(count(model, "KV Convert to int"), 1);
  const auto kv = std::find_if(model.info_lines.begin(), model.info_lines.end(),
                               [](const std::string& line) { return line.rfind("KV Convert", 0) == 0; });
  ASSERT_LE(kv + 3, model.info_lines.end());
  EXPECT_EQ(kv[1].rfind("HINT: In many cases", 0), 0u);
  EXPECT_EQ(kv[2].rfind("HINT: To confirm, set NCCL_TOPO_DUMP_FILE=topo.xml", 0), 0u);
}

}  // namespace
}  // namespace linkscope::topo
