// The model against the spec's rules, on fixtures and on small crafted systems.
#include <gtest/gtest.h>

#include <regex>

#include <fmt/format.h>

#include "core/error.hpp"
#include "support/run_command.hpp"
#include "topo/bcm_flatten.hpp"
#include "topo/graph_edit.hpp"
#include "topo/nccl_format.hpp"
#include "topo/nccl_log_printer.hpp"
#include "topo/net_locality.hpp"
#include "topo/path_rewrites.hpp"
#include "topo/path_search.hpp"
#include "topo/topology_model.hpp"
#include "support/model_versions.hpp"

namespace linkscope::topo {
namespace {

TopologyModel load_fixture(const std::string& name, std::map<std::string, std::string> env = {}) {
  return load_topology_string(test::read_text(test::fixture(name)), name, Environment::from_map(std::move(env)), test::nccl_2_28_9());
}

TopologyModel load_text(const std::string& text, std::map<std::string, std::string> env = {}) {
  return load_topology_string(text, "t.xml", Environment::from_map(std::move(env)), test::nccl_2_28_9());
}

std::string error_of(const std::string& text) {
  try {
    load_text(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

const Path& path_by_id(const TopologyModel& model, const std::string& from, const std::string& to) {
  static const Path kMissing{};
  for (int ft = 0; ft < kNodeTypeCount; ++ft) {
    for (int f = 0; f < model.system.count(ft); ++f) {
      if (nccl_node_id(model.system, {ft, f}) != from) continue;
      for (int tt = 0; tt < kNodeTypeCount; ++tt) {
        for (int t = 0; t < model.system.count(tt); ++t) {
          if (nccl_node_id(model.system, {tt, t}) == to) return path_between(model.system, {ft, f}, {tt, t});
        }
      }
    }
  }
  ADD_FAILURE() << "no path " << from << " -> " << to;
  return kMissing;
}

std::string entry(const Path& path) {
  return fmt::format("({}/{}/{})", path.count, format_bw(path.bw), path_type_name(path.type));
}

// A small x86 system: GPUs (bus 0x10+i) under one PCIe switch with optional NICs, optional NVLinks i <-> i+1.
std::string crafted(int gpus, int nets, int sm, bool nvlink, int net_gdr = 1, const std::string& cpu_extra = "") {
  std::string xml = "<system version=\"1\">\n  <cpu numaid=\"0\" arch=\"x86_64\" vendor=\"GenuineIntel\" familyid=\"6\" "
                    "modelid=\"85\"" + cpu_extra + ">\n";
  xml += "    <pci busid=\"0000:01:00.0\" class=\"0x060400\" link_speed=\"16.0 GT/s PCIe\" link_width=\"16\">\n";
  for (int g = 0; g < gpus; ++g) {
    xml += fmt::format("      <pci busid=\"0000:{:02x}:00.0\" class=\"0x030200\" link_speed=\"16.0 GT/s PCIe\" "
                       "link_width=\"16\">\n        <gpu dev=\"{}\" sm=\"{}\" rank=\"{}\" gdr=\"1\">\n",
                       0x10 + g, g, sm, g);
    if (nvlink) {
      for (int p = 0; p < gpus; ++p) {
        if (p != g) xml += fmt::format("          <nvlink target=\"0000:{:02x}:00.0\" count=\"2\" tclass=\"0x030200\"/>\n", 0x10 + p);
      }
    }
    xml += "        </gpu>\n      </pci>\n";
  }
  for (int n = 0; n < nets; ++n) {
    xml += fmt::format("      <pci busid=\"0000:{:02x}:00.0\" class=\"0x020700\" link_speed=\"16.0 GT/s PCIe\" "
                       "link_width=\"16\">\n        <nic><net name=\"mlx5_{}\" dev=\"{}\" speed=\"100000\" gdr=\"{}\"/></nic>\n"
                       "      </pci>\n",
                       0x40 + n, n, n, net_gdr);
  }
  xml += "    </pci>\n  </cpu>\n</system>\n";
  return xml;
}

TEST(TopoGraph, InsertKeepsLinksSortedAndStable) {
  TopoSystem system;
  const NodeRef a = create_node(system, kPci, 1, 0);
  std::vector<NodeRef> remote;
  for (int i = 0; i < 4; ++i) remote.push_back(create_node(system, kPci, 10 + i, 0));
  connect_nodes(system, a, remote[0], kLinkPci, 10.0f);
  connect_nodes(system, a, remote[1], kLinkPci, 20.0f);
  connect_nodes(system, a, remote[2], kLinkPci, 10.0f);
  connect_nodes(system, a, remote[3], kLinkPci, 20.0f);
  auto order = [&] {
    std::vector<int> ids;
    for (const Link& link : system.at(a).links) ids.push_back(static_cast<int>(system.at(link.remote).id));
    return ids;
  };
  EXPECT_EQ(order(), (std::vector<int>{11, 13, 10, 12}));
  connect_nodes(system, a, remote[2], kLinkPci, 15.0f);  // aggregates to 25 and moves to the front
  EXPECT_EQ(order(), (std::vector<int>{12, 11, 13, 10}));
  EXPECT_EQ(system.at(a).links[0].bw, 25.0f);
  connect_nodes(system, a, remote[0], kLinkNvl, 5.0f);  // another type is another link
  EXPECT_EQ(system.at(a).links.size(), 5u);

  remove_node(system, remote[1]);
  EXPECT_EQ(system.count(kPci), 4);
  EXPECT_EQ(order(), (std::vector<int>{12, 13, 10, 10}));
  for (const Link& link : system.at(a).links) EXPECT_LT(link.remote.index, system.count(kPci));
}

TEST(TopoGraph, BroadcomSwitchIsFlattened) {
  const auto model = load_fixture("topo/a100x2-nvlink-bcm-gen5-spr.xml");
  ASSERT_EQ(model.system.count(kPci), 1);
  const Node& sw = model.system.nodes[kPci][0];
  EXPECT_EQ(format_hex(sw.device), "1000c0301000ffff");
  ASSERT_EQ(sw.links.size(), 3u);
  EXPECT_EQ(sw.links[0].remote.type, kGpu);
  EXPECT_EQ(sw.links[0].bw, 24.0f);  // the grandchildren keep their own bw
  EXPECT_EQ(sw.links[2].remote.type, kCpu);
  EXPECT_EQ(sw.links[2].bw, 48.0f);
}

// Two sibling Broadcom switches with the same bus id (a malformed or hand-edited file) used to restart the
// flattening forever; both are flattened once, as NCCL's pointers would.
TEST(TopoGraph, SiblingBroadcomSwitchesSharingABusIdFinish) {
  std::string xml = test::read_text(test::fixture("topo/a100x2-nvlink-bcm-gen5-spr.xml"));
  const std::string top = "<pci busid=\"0000:04:00.0\"";
  const auto begin = xml.find(top);
  ASSERT_NE(begin, std::string::npos);
  const auto end = xml.find("\n    </pci>\n", begin);
  ASSERT_NE(end, std::string::npos);
  const std::string block = xml.substr(begin, end + 11 - begin);
  xml.insert(end + 11, "\n    " + block);  // the same switch tree again, same bus ids
  const auto model = load_text(xml);
  for (const Node& node : model.system.nodes[kPci]) {
    EXPECT_EQ(broadcom_switch_generation(node.device, 0), 0) << format_hex(node.device);
  }
}

TEST(TopoGraph, SocketNicSharedByBothCpusIsOneNodeWithTwoNets) {
  const auto model = load_fixture("topo/hgx-h200-8gpu-nvswitch-vm-socketnic.xml");
  EXPECT_EQ(model.system.count(kNic), 1);
  EXPECT_EQ(model.system.count(kNet), 2);
  EXPECT_EQ(model.system.nodes[kNet][0].id, model.system.nodes[kNet][1].id);
  // Everything from the second NET/0-0 stays DIS: the BFS wrote into the first one's slot.
  EXPECT_EQ(entry(path_between(model.system, {kGpu, 0}, {kNet, 1})), "(0/0.0/DIS)");
  EXPECT_EQ(entry(path_between(model.system, {kGpu, 0}, {kNet, 0})), "(4/1.2/PHB)");
}

TEST(TopoPaths, PxnRoutesThroughThePeerGpuInTheGpuToNetDirectionOnly) {
  const auto model = load_fixture("topo/leonardo-booster-4xa100-nvlink-mesh-4nic.xml");
  const Path& pxn = path_by_id(model, "GPU/0-56000", "NET/0-0");
  EXPECT_EQ(entry(pxn), "(5/12.5/PXN)");
  const auto hops = model.system.hops_of(pxn);
  ASSERT_EQ(hops.size(), 5u);
  EXPECT_EQ(nccl_node_id(model.system, hops[0].remote), "GPU/0-1d000");
  EXPECT_EQ(nccl_node_id(model.system, hops[4].remote), "NET/0-0");
  EXPECT_EQ(entry(path_by_id(model, "NET/0-0", "GPU/0-56000")), "(6/12.5/PHB)");
  EXPECT_EQ(pxn_intermediate_rank(model.system, model.system.index_of(kGpu, compose_id(0, 0x56000)), 0), 0);
}

TEST(TopoPaths, NvbRelayAndP2pLevelNvl) {
  auto model = load_fixture("topo-variants/leonardo-booster-4xa100-no-nvlink-1d-c8.xml");
  EXPECT_EQ(entry(path_by_id(model, "GPU/0-1d000", "GPU/0-c8000")), "(2/80.0/NVB)");
  // NCCL_P2P_LEVEL=NVL: NVB pairs lose P2P and go through the CPU (spec §6.1).
  model = load_fixture("topo-variants/leonardo-booster-4xa100-no-nvlink-1d-c8.xml", {{"NCCL_P2P_LEVEL", "NVL"}});
  EXPECT_EQ(entry(path_by_id(model, "GPU/0-1d000", "GPU/0-c8000")), "(6/24.0/PHB)");
  EXPECT_EQ(entry(path_by_id(model, "GPU/0-1d000", "GPU/0-56000")), "(1/80.0/NVL)");
  EXPECT_EQ(model.info_lines[2], "NCCL_P2P_LEVEL set by environment to NVL");
  // The relation matrix still shows the PCIe relation of the NVB pair (nvidia-smi has no NVLink there).
  EXPECT_EQ(model.gpu_paths_before_rewrites[0][3].type, kPathNvb);
}

TEST(TopoPaths, AmdWithTwoGpusAllowsP2pAcrossSockets) {
  std::string two_sockets = test::read_text(test::fixture("topo/azure-ncv4-topo.xml"));
  const auto cut = two_sockets.find("  <cpu numaid=\"2\"");
  two_sockets = two_sockets.substr(0, cut) + "</system>\n";
  const auto model = load_text(two_sockets);
  ASSERT_EQ(model.system.count(kGpu), 2);
  EXPECT_EQ(model.p2p_level, kPathSys);
  const auto& pair = model.p2p[1];
  EXPECT_EQ(pair.src_rank, 0);
  EXPECT_EQ(pair.dst_rank, 1);
  EXPECT_TRUE(pair.check.p2p);
  EXPECT_EQ(entry(pair.path), "(3/12.0/SYS)");
  // The four-GPU original keeps the default PXB: no P2P across sockets.
  EXPECT_FALSE(load_fixture("topo/azure-ncv4-topo.xml").p2p[1].check.p2p);
}

TEST(TopoGdr, ReadsBelowSm80NeedAnNvlinkPeer) {
  auto model = load_text(crafted(2, 1, 70, false));
  ASSERT_EQ(model.gdr.size(), 2u);
  EXPECT_EQ(model.gdr[0].write.mode, kGdrDefault);
  EXPECT_EQ(model.gdr[0].read.mode, kGdrDisabled);
  EXPECT_EQ(model.gdr[0].read.reason, "GDR reads are off below SM80 unless the GPU has an NVLink peer");
  model = load_text(crafted(2, 1, 70, true));
  EXPECT_EQ(model.gdr[0].read.mode, kGdrDefault);
  model = load_text(crafted(1, 1, 70, false));  // a single GPU keeps reads
  EXPECT_EQ(model.gdr[0].read.mode, kGdrDefault);
  model = load_text(crafted(2, 1, 80, false), {{"NCCL_NET_GDR_READ", "0"}});
  EXPECT_EQ(model.gdr[0].read.mode, kGdrDisabled);
  EXPECT_EQ(model.gdr[0].write.mode, kGdrDefault);
  model = load_text(crafted(2, 1, 80, false, 0));
  EXPECT_EQ(model.gdr[0].write.reason, "the NIC does not support GPUDirect RDMA (net gdr=0)");
}

TEST(TopoGdr, LocalNetSpreadingFollowsTheNetdevsPolicy) {
  // Two GPUs and two NICs on one switch: every GPU has both NICs at the same (PIX) distance.
  const std::string xml = crafted(2, 2, 80, true);
  auto model = load_text(xml);
  const NcclParams auto_policy = model.params;
  EXPECT_EQ(local_net_id(model.system, auto_policy, 0, 0), compose_id(0, 0));
  EXPECT_EQ(local_net_id(model.system, auto_policy, 1, 0), compose_id(0, 1));  // dev 1 mirrored over 2 NICs
  EXPECT_EQ(local_net_id(model.system, auto_policy, 0, 1), compose_id(0, 0));  // AUTO: one NIC per GPU
  EXPECT_EQ(local_gpu_of_net(model.system, auto_policy, compose_id(0, 1)), 1);
  NcclParams all = auto_policy;
  all.netdevs_policy = NetDevsPolicy::kAll;
  EXPECT_EQ(local_net_id(model.system, all, 0, 1), compose_id(0, 1));
  NcclParams max = auto_policy;
  max.netdevs_policy = NetDevsPolicy::kMax;
  max.netdevs_policy_max = 1;
  EXPECT_EQ(local_net_id(model.system, max, 0, 1), compose_id(0, 0));
}

TEST(TopoModel, SingleGpuBandwidthIsLocBw) {
  const auto model = load_text(crafted(1, 0, 90, false));
  EXPECT_EQ(model.max_bw, kLocBw);
  EXPECT_EQ(model.total_bw, kLocBw);
}

TEST(TopoModel, PathLinesAreCutAt1023Bytes) {
  const auto model = load_text(crafted(1, 60, 90, false));
  const auto lines = nccl_path_lines(model);
  EXPECT_EQ(lines[0].size(), kNcclLineBytes);
  EXPECT_EQ(lines[0].rfind("GPU/0-10000 :GPU/0-10000 (0/5000.0/LOC) ", 0), 0u);
}

TEST(TopoModel, OneSidedNvlinkIsFatalAndNamesBothGpus) {
  EXPECT_EQ(error_of(test::read_text(test::fixture("topo-variants/a100x2-one-sided-nvlink.xml"))),
            "t.xml:7: one-sided NVLink: GPU/0-8000 (0000:08:00.0) lists an NVLink to GPU/0-9000 (0000:09:00.0), but "
            "GPU/0-9000 lists none back; NCCL 2.28.9 stops here (Failed to find reverse path from remNode 0/9000 "
            "nlinks 1 to node 0/8000)");
}

TEST(TopoModel, RanklessGpus) {
  std::string xml = crafted(2, 0, 80, false);
  xml.replace(xml.find(" rank=\"1\""), 9, "");
  const auto model = load_text(xml);
  EXPECT_EQ(model.system.count(kGpu), 1);
  EXPECT_TRUE(model.partial);
  EXPECT_EQ(model.gpu_slots, 1);

  std::string with_nvlink = crafted(2, 0, 80, true);
  with_nvlink.replace(with_nvlink.find(" rank=\"1\""), 9, "");
  EXPECT_EQ(error_of(with_nvlink),
            "t.xml:11: <nvlink> of GPU 0000:11:00.0 which is not in the graph (its <gpu> has no rank attribute); NCCL "
            "2.28.9 stops here (Add NVLink error : could not find GPU 11000)");
}

TEST(TopoModel, RefusesBadAttributeValuesWithTheLine) {
  std::string xml = crafted(1, 0, 80, false);
  EXPECT_EQ(error_of(std::regex_replace(xml, std::regex("sm=\"80\""), "sm=\"eighty\"")),
            "t.xml:5: <gpu sm=\"eighty\">: not a number");
  EXPECT_EQ(error_of(std::regex_replace(xml, std::regex(" dev=\"0\""), "")),
            "t.xml:5: <gpu> has no dev attribute (NCCL: Attribute dev of node gpu not found)");
  EXPECT_EQ(error_of(std::regex_replace(crafted(2, 0, 80, true), std::regex("count=\"2\""), "count=\"-2\"")),
            "t.xml:6: <nvlink count=\"-2\">: must not be negative");
  EXPECT_EQ(error_of(std::regex_replace(xml, std::regex("link_width=\"16\""), "link_width=\"4294967312\"")),
            "t.xml:4: <pci link_width=\"4294967312\">: out of range");
  EXPECT_EQ(error_of("<system version=\"1\"/>"),
            "t.xml:1: <system> has no <cpu> element: nothing to model (NCCL 2.28.9 stops: localHostHash not found in "
            "hostHashes)");
}

TEST(TopoModel, NotesWhatNcclWouldRefuseButStillModels) {
  std::string xml = test::read_text(test::fixture("topo/a100x2-nvlink-bcm-gen5-spr.xml"));
  xml = "<?xml version=\"1.0\"?>\n" + std::regex_replace(xml, std::regex("\n  <cpu"), "\n\t<cpu");
  const auto model = load_text(xml);
  ASSERT_FALSE(model.notes.empty());
  EXPECT_EQ(model.notes[0],
            "NCCL 2.28.9 would refuse this file: line 1: an <?xml ...?> declaration or processing instruction (NCCL: "
            "XML Parse : expected >, got '?'); linkscope models it anyway");
  EXPECT_EQ(model.system.count(kGpu), 2);
  EXPECT_NE(render_topology_text(model).find("note: NCCL 2.28.9 would refuse this file"), std::string::npos);
  EXPECT_EQ(model::to_json(topology_view(model))["notes"][0], model.notes[0]);
}

TEST(TopoModel, ManyHostHashesAreOneHost) {
  std::string xml = test::read_text(test::fixture("topo/a100x2-nvlink-bcm-gen5-spr.xml"));
  xml.replace(xml.rfind("0x40c83cfe216cc077"), 18, "0x1111111111111111");
  const auto model = load_text(xml);
  EXPECT_EQ(model.system.count(kCpu), 2);
  EXPECT_EQ(model.system.nodes[kCpu][1].links[0].type, kLinkSys);
  EXPECT_NE(model.notes.at(0).find("2 different host_hash values"), std::string::npos);
}

TEST(TopoModel, JsonStaysValidUtf8WhateverTheAttributeBytes) {
  std::string xml = crafted(1, 1, 80, false);
  xml.replace(xml.find("mlx5_0"), 6, "mlx\xa0\xff\xc3");  // Latin-1 and broken sequences in a NIC name
  const auto json = model::to_json(topology_view(load_text(xml)));
  EXPECT_NO_THROW(json.dump());
  std::string name;
  for (const auto& node : json["nodes"]) {
    if (node["type"] == "NET") name = node["name"];
  }
  EXPECT_EQ(name, "mlx\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");
}

TEST(TopoModel, AtMost64CpuNodes) {
  std::string xml = "<system version=\"1\">\n";
  for (int c = 0; c < 65; ++c) xml += "<cpu numaid=\"" + std::to_string(c) + "\" arch=\"arm64\"/>\n";
  xml += "</system>\n";
  EXPECT_EQ(error_of(xml), "t.xml:66: more than 64 <cpu> (NUMA) nodes: linkscope models one host with at most 64");
}

TEST(TopoModel, DuplicateRanksAreNoted) {
  std::string xml = crafted(2, 0, 80, false);
  xml.replace(xml.find("rank=\"1\""), 8, "rank=\"0\"");
  const auto model = load_text(xml);
  ASSERT_EQ(model.notes.size(), 1u);
  EXPECT_EQ(model.notes[0], "rank 0 is given to 2 GPUs; NCCL resolves it to the first, GPU/0-10000, so P2P and GDR "
                            "decisions for that rank are about that GPU");
}

}  // namespace
}  // namespace linkscope::topo
