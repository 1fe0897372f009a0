#include <gtest/gtest.h>

#include "discover/nccl_net_selection.hpp"
#include "discover/xml_synthesis.hpp"
#include "discover/xml_tree.hpp"
#include "discover_fake_sysfs.hpp"
#include "discover_recorded_h200x2.hpp"
#include "discover_snapshot.hpp"

namespace linkscope::discover {
namespace {

Environment no_env() { return Environment::from_map({}); }

std::string without_host_hash(std::string xml) {
  const std::string attribute = " host_hash=\"";
  for (auto at = xml.find(attribute); at != std::string::npos; at = xml.find(attribute)) {
    xml.erase(at, xml.find('"', at + attribute.size()) + 1 - at);
  }
  return xml;
}

TEST(DiscoverXmlSynthesis, H200x2FactsGiveNcclsOwnDump) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  const NvmlSnapshot nvml = test::h200x2_nvml_snapshot();
  const SystemFacts facts =
      assemble_system_facts(read_host_facts(SysfsRoot(snapshot.root())), nvml, test::h200x2_cuda_snapshot(nvml, {0, 1}), no_env());
  const SynthesizedTopology topology = synthesize_topology_xml(facts, no_env());
  EXPECT_EQ(topology.gpu_count, 2);
  EXPECT_EQ(topology.nets.plugin, "Socket");
  // Byte for byte NCCL 2.28.3's NCCL_TOPO_DUMP_FILE from that machine, except the host hash we do not write.
  EXPECT_EQ(topology.xml, without_host_hash(test::read_text(test::fixture("h200x2/nccl-topo-dump.xml"))));
}

TEST(DiscoverXmlSynthesis, OneVisibleGpuGivesARankZeroXmlWithItsNvmlIndex) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  const NvmlSnapshot nvml = test::h200x2_nvml_snapshot();
  const Environment env = Environment::from_map({{"CUDA_VISIBLE_DEVICES", "1"}});
  const SystemFacts facts =
      assemble_system_facts(read_host_facts(SysfsRoot(snapshot.root())), nvml, test::h200x2_cuda_snapshot(nvml, {1}), env);
  const SynthesizedTopology topology = synthesize_topology_xml(facts, env);
  EXPECT_EQ(topology.gpu_count, 1);
  EXPECT_NE(topology.xml.find("<pci busid=\"0000:00:07.0\""), std::string::npos) << topology.xml;
  EXPECT_EQ(topology.xml.find("0000:00:06.0"), std::string::npos) << topology.xml;
  EXPECT_NE(topology.xml.find("<gpu dev=\"1\" sm=\"90\" rank=\"0\" gdr=\"1\">"), std::string::npos) << topology.xml;
}

// Synthetic two-socket machine: GPUs 0000:03:00.0 and 0000:04:00.0 behind switch 0000:01:00.0 with mlx5_0,
// GPU 0000:83:00.0 behind switch 0000:81:00.0 on socket 1.
class SyntheticMachine : public ::testing::Test {
 protected:
  void SetUp() override {
    test::build_two_socket_machine(fs_);
    host_ = read_host_facts(SysfsRoot(dir_.path()));
    host_.sysfs_root = dir_.path();
  }

  static NvmlGpuRecord gpu(unsigned index, const std::string& bdf) {
    NvmlGpuRecord record;
    record.index = index;
    record.uuid = "GPU-synthetic-" + std::to_string(index);
    record.name = "NVIDIA H100";
    record.pci_bus_id = bdf;
    record.sm = Fact<int>::known(90);
    return record;
  }

  static void link_to(NvmlGpuRecord& gpu, const std::string& remote, unsigned links, bool p2p = true) {
    for (unsigned i = 0; i < links; ++i) {
      NvlinkRecord link;
      link.link = static_cast<unsigned>(gpu.nvlinks.size());
      link.active = Fact<bool>::known(true);
      link.p2p_supported = Fact<bool>::known(p2p);
      link.remote_bus_id = Fact<std::string>::known(remote);
      link.remote_type = Fact<std::string>::known("gpu");
      gpu.nvlinks.push_back(link);
    }
  }

  SynthesizedTopology synthesize(const std::vector<std::string>& cuda_order, const Environment& env) {
    NvmlSnapshot nvml;
    nvml.available = true;
    nvml.gpus = {gpu(0, "0000:03:00.0"), gpu(1, "0000:04:00.0"), gpu(2, "0000:83:00.0")};
    link_to(nvml.gpus[0], "0000:04:00.0", 4);
    link_to(nvml.gpus[1], "0000:03:00.0", 4);
    link_to(nvml.gpus[1], "0000:83:00.0", 2, /*p2p=*/false);  // not P2P-capable: NCCL ignores it
    CudaSnapshot cuda;
    cuda.available = true;
    for (const auto& bdf : cuda_order) {
      CudaDeviceRecord device;
      device.ordinal = static_cast<int>(cuda.devices.size());
      device.pci_bus_id = bdf;
      device.sm = 90;
      device.gpu_direct_rdma = Fact<bool>::known(true);
      cuda.devices.push_back(device);
    }
    facts_ = assemble_system_facts(host_, nvml, cuda, env);
    return synthesize_topology_xml(facts_, env);
  }

  test::TempDir dir_;
  test::FakeSysfs fs_{dir_};
  HostFacts host_;
  SystemFacts facts_;
};

TEST_F(SyntheticMachine, SwitchesCpusNvlinksAndTheIbNic) {
  const SynthesizedTopology topology = synthesize({"0000:03:00.0", "0000:04:00.0", "0000:83:00.0"}, no_env());
  const std::string expected =
      "<system version=\"1\">\n"
      "  <cpu numaid=\"0\" affinity=\"00000000,0000ffff\" arch=\"x86_64\" vendor=\"AuthenticAMD\" familyid=\"175\" modelid=\"1\">\n"
      "    <pci busid=\"0000:01:00.0\" class=\"0x060400\" vendor=\"0x10b5\" device=\"0xc010\" subsystem_vendor=\"0x10b5\" "
      "subsystem_device=\"0x0000\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n"
      "      <pci busid=\"0000:03:00.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x2335\" subsystem_vendor=\"0x10de\" "
      "subsystem_device=\"0x0000\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n"
      "        <gpu dev=\"0\" sm=\"90\" rank=\"0\" gdr=\"1\">\n"
      "          <nvlink target=\"0000:04:00.0\" count=\"4\" tclass=\"0x030200\"/>\n"
      "        </gpu>\n"
      "      </pci>\n"
      "      <pci busid=\"0000:05:00.0\" class=\"0x020700\" vendor=\"0x15b3\" device=\"0x1021\" subsystem_vendor=\"0x15b3\" "
      "subsystem_device=\"0x0000\" link_speed=\"16.0 GT/s PCIe\" link_width=\"16\">\n"
      "        <nic>\n"
      "          <net name=\"mlx5_0\" dev=\"0\" latency=\"0\" speed=\"400000\" port=\"1\" guid=\"0x5634120003a1420c\" gdr=\"0\"/>\n"
      "        </nic>\n"
      "      </pci>\n"
      "      <pci busid=\"0000:04:00.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x2335\" subsystem_vendor=\"0x10de\" "
      "subsystem_device=\"0x0000\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n"
      "        <gpu dev=\"1\" sm=\"90\" rank=\"1\" gdr=\"1\">\n"
      "          <nvlink target=\"0000:03:00.0\" count=\"4\" tclass=\"0x030200\"/>\n"
      "        </gpu>\n"
      "      </pci>\n"
      "    </pci>\n"
      "  </cpu>\n"
      "  <cpu numaid=\"1\" affinity=\"00000000,ffff0000\" arch=\"x86_64\" vendor=\"AuthenticAMD\" familyid=\"175\" modelid=\"1\">\n"
      "    <pci busid=\"0000:81:00.0\" class=\"0x060400\" vendor=\"0x10b5\" device=\"0xc010\" subsystem_vendor=\"0x10b5\" "
      "subsystem_device=\"0x0000\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n"
      "      <pci busid=\"0000:83:00.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x2335\" subsystem_vendor=\"0x10de\" "
      "subsystem_device=\"0x0000\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">\n"
      "        <gpu dev=\"2\" sm=\"90\" rank=\"2\" gdr=\"1\"/>\n"
      "      </pci>\n"
      "    </pci>\n"
      "  </cpu>\n"
      "</system>\n";
  EXPECT_EQ(topology.xml, expected);
  EXPECT_EQ(topology.nets.plugin, "IB");
}

TEST_F(SyntheticMachine, RankOrderDecidesWhereFusedGpusGo) {
  // CUDA ordinal 0 is the socket-1 GPU: its CPU comes first, and GPU 0000:03:00.0 joins the existing switch
  // after the NIC (fusion appends what rank 0 did not have).
  const SynthesizedTopology topology = synthesize({"0000:83:00.0", "0000:04:00.0", "0000:03:00.0"}, no_env());
  const auto cpu1 = topology.xml.find("<cpu numaid=\"1\"");
  const auto cpu0 = topology.xml.find("<cpu numaid=\"0\"");
  ASSERT_NE(cpu1, std::string::npos);
  EXPECT_LT(cpu1, cpu0) << topology.xml;
  // Rank 0 (socket 1) put the IB NIC under socket 0's switch; ranks 1 and 2 add their GPUs after it.
  const auto nic = topology.xml.find("0000:05:00.0");
  const auto gpu04 = topology.xml.find("busid=\"0000:04:00.0\"");
  const auto gpu03 = topology.xml.find("busid=\"0000:03:00.0\"");
  EXPECT_LT(nic, gpu04) << topology.xml;
  EXPECT_LT(gpu04, gpu03) << topology.xml;
  EXPECT_NE(topology.xml.find("<gpu dev=\"0\" sm=\"90\" rank=\"2\""), std::string::npos) << topology.xml;  // NVML 0 is rank 2
}

TEST_F(SyntheticMachine, SocketTransportWhenIbIsDisabled) {
  const Environment env = Environment::from_map({{"NCCL_IB_DISABLE", "1"}});
  const SynthesizedTopology topology = synthesize({"0000:03:00.0"}, env);
  // No address information in a snapshot: every interface with a device is a candidate, "ib*" first.
  EXPECT_EQ(topology.nets.plugin, "Socket");
  ASSERT_EQ(topology.nets.devices.size(), 1u);
  EXPECT_EQ(topology.nets.devices[0].name, "ib0");
  const Environment ens = Environment::from_map({{"NCCL_IB_DISABLE", "1"}, {"NCCL_SOCKET_IFNAME", "ens"}});
  const SynthesizedTopology ethernet = synthesize({"0000:03:00.0"}, ens);
  ASSERT_EQ(ethernet.nets.devices.size(), 1u);
  EXPECT_EQ(ethernet.nets.devices[0].name, "ens5");
  EXPECT_EQ(ethernet.nets.devices[0].speed_mbit_s, 100000);
  // ens5 sits under socket 1's switch: its PCI path pulls in that CPU even though no GPU lives there.
  EXPECT_NE(ethernet.xml.find("<cpu numaid=\"1\""), std::string::npos) << ethernet.xml;
  EXPECT_NE(ethernet.xml.find("<net name=\"ens5\" dev=\"0\" latency=\"0\" speed=\"100000\" port=\"0\" guid=\"0x0\" "
                              "maxconn=\"65536\" gdr=\"0\"/>"),
            std::string::npos)
      << ethernet.xml;
}

TEST_F(SyntheticMachine, NoCudaGpuMeansNoXml) {
  const SynthesizedTopology topology = synthesize({}, no_env());
  EXPECT_TRUE(topology.xml.empty());
  EXPECT_EQ(topology.gpu_count, 0);
  ASSERT_FALSE(topology.notes.empty());
  EXPECT_NE(topology.notes.back().find("no GPU is visible to CUDA"), std::string::npos);
}

TEST(DiscoverXmlTree, FuseMatchesOnIdenticalAttributesAndTrimDropsEmptyBranches) {
  XmlDocument a;
  XmlNode* system = a.create("system", nullptr);
  system->set("version", "1");
  XmlNode* cpu = a.create("cpu", system);
  cpu->set("numaid", "0");
  a.create("pci", cpu)->set("busid", "0000:01:00.0");  // no kept node below: trimmed
  XmlNode* kept = a.create("pci", cpu);
  kept->set("busid", "0000:02:00.0");
  XmlNode* gpu = a.create("gpu", kept);
  gpu->set("keep", "1");
  gpu->set("rank", "0");
  a.trim();
  EXPECT_EQ(a.dump(),
            "<system version=\"1\">\n  <cpu numaid=\"0\">\n    <pci busid=\"0000:02:00.0\">\n      <gpu rank=\"0\"/>\n"
            "    </pci>\n  </cpu>\n</system>\n");
  XmlDocument b;
  XmlNode* system_b = b.create("system", nullptr);
  system_b->set("version", "1");
  XmlNode* cpu_b = b.create("cpu", system_b);
  cpu_b->set("numaid", "0");
  b.create("pci", cpu_b)->set("busid", "0000:03:00.0");
  XmlNode* other_cpu = b.create("cpu", system_b);
  other_cpu->set("numaid", "1");
  XmlDocument fused;
  fused.fuse(a);
  fused.fuse(b);
  EXPECT_EQ(fused.dump(),
            "<system version=\"1\">\n  <cpu numaid=\"0\">\n    <pci busid=\"0000:02:00.0\">\n      <gpu rank=\"0\"/>\n"
            "    </pci>\n    <pci busid=\"0000:03:00.0\"/>\n  </cpu>\n  <cpu numaid=\"1\"/>\n</system>\n");
}

TEST(DiscoverNetSelection, NameListsFollowNccl) {
  EXPECT_TRUE(nccl_name_matches("", "eth0", -1));
  EXPECT_TRUE(nccl_name_matches("eth", "eth0", -1));
  EXPECT_FALSE(nccl_name_matches("=eth", "eth0", -1));
  EXPECT_TRUE(nccl_name_matches("=eth0", "eth0", -1));
  EXPECT_FALSE(nccl_name_matches("^docker,lo", "docker0", -1));
  EXPECT_TRUE(nccl_name_matches("^docker,lo", "eth0", -1));
  EXPECT_TRUE(nccl_name_matches("mlx5_0:1", "mlx5_0", 1));
  EXPECT_FALSE(nccl_name_matches("mlx5_0:2", "mlx5_0", 1));
}

}  // namespace
}  // namespace linkscope::discover
