#include <gtest/gtest.h>

#include <algorithm>

#include "discover/cpu_info.hpp"
#include "discover/host_facts.hpp"
#include "discover/nic_reader.hpp"
#include "discover/numa_reader.hpp"
#include "discover/pci_tree.hpp"
#include "discover/sysfs_root.hpp"
#include "discover_fake_sysfs.hpp"
#include "discover_snapshot.hpp"

namespace linkscope::discover {
namespace {

using test::FakeSysfs;
using test::TempDir;

const NicDevice* nic_named(const std::vector<NicDevice>& nics, const std::string& name) {
  const auto it = std::find_if(nics.begin(), nics.end(), [&](const NicDevice& n) { return n.name == name; });
  return it == nics.end() ? nullptr : &*it;
}

TEST(DiscoverSysfs, ResolveFollowsRelativeAbsoluteAndDanglingLinks) {
  TempDir dir;
  FakeSysfs fs(dir);
  fs.file("/sys/devices/pci0000:00/0000:00:06.0/class", "0x030200");
  fs.link("/sys/bus/pci/devices/0000:00:06.0", "../../../devices/pci0000:00/0000:00:06.0");
  fs.link("/sys/class/net/eth0", "../../devices/pci0000:00/0000:00:03.0/virtio2/net/eth0");  // target not captured
  fs.link("/sys/class/absolute", "/sys/devices/pci0000:00");
  const SysfsRoot root(dir.path());
  EXPECT_EQ(root.resolve("/sys/bus/pci/devices/0000:00:06.0"), "/sys/devices/pci0000:00/0000:00:06.0");
  EXPECT_EQ(root.resolve("/sys/class/net/eth0"), "/sys/devices/pci0000:00/0000:00:03.0/virtio2/net/eth0");
  EXPECT_EQ(root.resolve("/sys/class/absolute/0000:00:06.0"), "/sys/devices/pci0000:00/0000:00:06.0");
  EXPECT_EQ(root.resolve("/sys/bus/pci/devices/0000:00:06.0/../.."), "/sys/devices");
  EXPECT_EQ(root.read_attribute("/sys/bus/pci/devices/0000:00:06.0/class"), "0x030200");
  EXPECT_FALSE(root.read_attribute("/sys/bus/pci/devices/0000:00:06.0/numa_node").has_value());
  EXPECT_FALSE(root.is_live());
}

TEST(DiscoverSysfs, PathHelpers) {
  EXPECT_EQ(normalize_path("/a/b/../c/./d/"), "/a/c/d");
  EXPECT_EQ(normalize_path("/../.."), "/");
  EXPECT_EQ(path_basename("/sys/devices/pci0000:00/0000:00:06.0"), "0000:00:06.0");
  EXPECT_EQ(path_dirname("/sys/devices/pci0000:00"), "/sys/devices");
  EXPECT_EQ(path_dirname("/sys"), "/");
}

TEST(DiscoverSysfs, CanonicalBusIds) {
  EXPECT_EQ(canonical_bdf("00000000:1A:00.0"), "0000:1a:00.0");
  EXPECT_EQ(canonical_bdf("0000:1a:00.0"), "0000:1a:00.0");
  EXPECT_EQ(canonical_bdf("1a:00.1"), "0000:1a:00.1");
  EXPECT_EQ(canonical_bdf("0001:00:00.0"), "0001:00:00.0");
  EXPECT_FALSE(canonical_bdf("fffffff:ff:ff.0").has_value());  // NVML's "remote not visible" marker
  EXPECT_FALSE(canonical_bdf("GPU-1234").has_value());
  EXPECT_FALSE(canonical_bdf("0000:1a:20.0").has_value());  // device numbers stop at 0x1f
  EXPECT_FALSE(canonical_bdf("").has_value());
  EXPECT_TRUE(is_sysfs_bdf("0000:00:06.0"));
  EXPECT_FALSE(is_sysfs_bdf("pci0000:00"));
  EXPECT_FALSE(is_sysfs_bdf("00000000:00:06.0"));
}

TEST(DiscoverSysfs, PcieGenerationFromSpeedStrings) {
  EXPECT_EQ(pcie_generation_from_speed("2.5 GT/s"), 1);
  EXPECT_EQ(pcie_generation_from_speed("5.0 GT/s PCIe"), 2);
  EXPECT_EQ(pcie_generation_from_speed("8.0 GT/s PCIe"), 3);
  EXPECT_EQ(pcie_generation_from_speed("16.0 GT/s PCIe"), 4);
  EXPECT_EQ(pcie_generation_from_speed("32.0 GT/s PCIe"), 5);
  EXPECT_EQ(pcie_generation_from_speed("64.0 GT/s PCIe"), 6);
  EXPECT_FALSE(pcie_generation_from_speed("Unknown").has_value());
  EXPECT_FALSE(pcie_generation_from_speed("").has_value());
}

TEST(DiscoverSysfs, SyntheticTreeHasSwitchesAndADegradedGpu) {
  TempDir dir;
  FakeSysfs fs(dir);
  test::build_two_socket_machine(fs);
  const PciTree tree = read_pci_tree(SysfsRoot(dir.path()));
  ASSERT_EQ(tree.devices().size(), 14u);
  const PciDevice* gpu = tree.find("0000:03:00.0");
  ASSERT_NE(gpu, nullptr);
  EXPECT_TRUE(gpu->is_display());
  EXPECT_EQ(gpu->sysfs_path, "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0");
  EXPECT_EQ(tree.ancestors(*gpu), (std::vector<std::string>{"0000:02:00.0", "0000:01:00.0", "0000:00:01.0"}));
  EXPECT_EQ(tree.root_complex(*gpu), "pci0000:00");
  EXPECT_EQ(tree.upstream_port(*gpu)->bdf, "0000:02:00.0");
  const NcclPciParent parent = tree.nccl_parent(*gpu);
  EXPECT_FALSE(parent.is_cpu);
  EXPECT_EQ(parent.bdf, "0000:01:00.0");  // the switch's upstream port, skipping the downstream port
  const NcclPciParent switch_parent = tree.nccl_parent(*tree.find("0000:01:00.0"));
  EXPECT_TRUE(switch_parent.is_cpu);
  EXPECT_EQ(switch_parent.numa_id, "0");

  const PciDevice* degraded = tree.find("04:00.0");
  ASSERT_NE(degraded, nullptr);
  EXPECT_EQ(degraded->current_width(), 8);
  EXPECT_EQ(degraded->max_width(), 16);
  EXPECT_EQ(degraded->max_generation(), 5);
  EXPECT_EQ(tree.find("0000:83:00.0")->numa_node_id(), 1);
  EXPECT_TRUE(tree.find("0000:01:00.0")->is_bridge());
  EXPECT_TRUE(tree.find("0000:84:00.0")->is_network());
  EXPECT_EQ(tree.find("0000:99:00.0"), nullptr);
}

TEST(DiscoverSysfs, SyntheticNumaNodes) {
  TempDir dir;
  FakeSysfs fs(dir);
  test::build_two_socket_machine(fs);
  const auto nodes = read_numa_nodes(SysfsRoot(dir.path()));
  ASSERT_EQ(nodes.size(), 2u);
  EXPECT_EQ(nodes[1].id, 1);
  EXPECT_EQ(nodes[1].cpus.front(), 16);
  EXPECT_EQ(nodes[1].cpus.size(), 16u);
  EXPECT_EQ(nodes[0].cpumap, "00000000,0000ffff");
  EXPECT_EQ(nodes[0].distances, (std::vector<int>{10, 32}));
  EXPECT_EQ(numa_nodes_of_cpus(nodes, {3, 20}), (std::vector<int>{0, 1}));
  EXPECT_EQ(numa_nodes_of_cpus(nodes, {17}), (std::vector<int>{1}));
}

TEST(DiscoverSysfs, SyntheticNicsInfinibandEthernetAndVirtual) {
  TempDir dir;
  FakeSysfs fs(dir);
  test::build_two_socket_machine(fs);
  const SysfsRoot root(dir.path());
  const auto nics = read_nics(root, read_pci_tree(root));
  ASSERT_EQ(nics.size(), 4u);  // mlx5_0, then docker0, ens5, ib0 (lo skipped)
  EXPECT_EQ(nics[0].name, "mlx5_0");
  const NicDevice* hca = nic_named(nics, "mlx5_0");
  EXPECT_EQ(hca->kind, "infiniband");
  EXPECT_EQ(hca->bus, "pci");
  EXPECT_EQ(hca->pci_bdf, "0000:05:00.0");
  EXPECT_EQ(hca->numa_node, 0);
  ASSERT_EQ(hca->ports.size(), 1u);
  EXPECT_EQ(hca->ports[0].state, "ACTIVE");
  EXPECT_DOUBLE_EQ(*hca->ports[0].rate_gbit_s, 400.0);
  EXPECT_EQ(hca->ports[0].link_layer, "InfiniBand");
  EXPECT_EQ(hca->node_guid, "0c42:a103:0012:3456");
  EXPECT_EQ(hca->net_devices, (std::vector<std::string>{"ib0"}));
  const NicDevice* ethernet = nic_named(nics, "ens5");
  EXPECT_EQ(ethernet->kind, "ethernet");
  EXPECT_EQ(ethernet->pci_bdf, "0000:84:00.0");
  EXPECT_EQ(ethernet->numa_node, 1);
  EXPECT_EQ(ethernet->speed_mbit_s, 100000);
  EXPECT_EQ(ethernet->operstate, "up");
  EXPECT_FALSE(ethernet->has_address.has_value()) << "addresses are unknown for a snapshot";
  const NicDevice* docker = nic_named(nics, "docker0");
  EXPECT_TRUE(docker->is_virtual);
  EXPECT_EQ(docker->bus, "virtual");
  EXPECT_EQ(nic_named(nics, "ib0")->kind, "ipoib");
  EXPECT_EQ(nic_named(nics, "lo"), nullptr);
}

TEST(DiscoverSysfs, CpuInfoUsesNcclFamilyEncoding) {
  const CpuInfo amd = parse_cpuinfo(
      "processor\t: 0\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\nmodel name\t: EPYC\n\n"
      "processor\t: 1\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\n\n");
  EXPECT_EQ(amd.arch, "x86_64");
  EXPECT_EQ(amd.vendor, "AuthenticAMD");
  EXPECT_EQ(amd.family_id, 175);  // 0xF + (0xA << 4), as NCCL's dumps write for Milan
  EXPECT_EQ(amd.model_id, 1);
  EXPECT_EQ(amd.logical_cpus, 2);
  const CpuInfo intel = parse_cpuinfo("processor : 0\nvendor_id : GenuineIntel\ncpu family : 6\nmodel : 143\n");
  EXPECT_EQ(intel.family_id, 6);
  EXPECT_EQ(intel.model_id, 143);
  const CpuInfo arm = parse_cpuinfo("processor : 0\nBogoMIPS : 2000.00\nCPU implementer : 0x41\n");
  EXPECT_EQ(arm.arch, "arm64");
  EXPECT_FALSE(arm.vendor.has_value());
  EXPECT_EQ(parse_cpuinfo("").arch, "");
}

TEST(DiscoverSysfs, H200x2SnapshotReadsAsCaptured) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  const HostFacts facts = read_host_facts(SysfsRoot(snapshot.root()));
  ASSERT_EQ(facts.pci.devices().size(), 8u);
  const PciDevice* gpu0 = facts.pci.find("0000:00:06.0");
  ASSERT_NE(gpu0, nullptr);
  EXPECT_TRUE(gpu0->is_display());
  EXPECT_EQ(gpu0->max_link_speed, "32.0 GT/s PCIe");
  EXPECT_EQ(gpu0->max_width(), 16);
  EXPECT_EQ(gpu0->numa_node_id(), -1);
  const NcclPciParent parent = facts.pci.nccl_parent(*gpu0);
  EXPECT_TRUE(parent.is_cpu);
  EXPECT_EQ(parent.numa_id, "-1");
  EXPECT_EQ(std::count_if(facts.pci.devices().begin(), facts.pci.devices().end(),
                          [](const PciDevice& d) { return d.is_display(); }),
            2);
  ASSERT_EQ(facts.numa_nodes.size(), 1u);
  EXPECT_EQ(facts.numa_nodes[0].cpus.size(), 32u);
  ASSERT_TRUE(facts.cpu.has_value());
  EXPECT_EQ(facts.cpu->vendor, "GenuineIntel");
  EXPECT_EQ(facts.cpu->family_id, 6);
  EXPECT_EQ(facts.cpu->model_id, 207);
  const NicDevice* eth0 = nic_named(facts.nics, "eth0");
  ASSERT_NE(eth0, nullptr);
  EXPECT_EQ(eth0->bus, "virtio");  // a virtio NIC: NCCL attaches it to the first CPU, not to a PCI node
  EXPECT_EQ(eth0->pci_bdf, "0000:00:03.0");
  EXPECT_EQ(eth0->device_path, "/sys/devices/pci0000:00/0000:00:03.0/virtio2");
  EXPECT_TRUE(nic_named(facts.nics, "ifb0")->is_virtual);
  EXPECT_FALSE(facts.evidence.peer_memory.registered);
}

}  // namespace
}  // namespace linkscope::discover
