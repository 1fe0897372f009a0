// NCCL's number parsing, dictionaries, bandwidth formulas and printf formats (spec §2, §3.1, §4.2, §9.4).
#include <gtest/gtest.h>

#include "topo/bcm_flatten.hpp"
#include "topo/nccl_format.hpp"
#include "topo/nccl_numbers.hpp"
#include "topo/topo_types.hpp"

namespace linkscope::topo {
namespace {

TEST(TopoNumbers, StrtolFollowsC) {
  EXPECT_EQ(c_strtol("010").value, 8);  // leading 0 = octal
  EXPECT_EQ(c_strtol("09").value, 0);   // octal stops at 9
  EXPECT_EQ(c_strtol("0x1f").value, 31);
  EXPECT_EQ(c_strtol("16x").value, 16);
  EXPECT_EQ(c_strtol(" -1").value, -1);
  EXPECT_EQ(c_strtol("0x").value, 0);
  EXPECT_TRUE(c_strtol("0x").parsed_digits);
  EXPECT_FALSE(c_strtol("").parsed_digits);
  EXPECT_FALSE(c_strtol("abc").parsed_digits);
  EXPECT_FALSE(c_strtol("-").parsed_digits);
  EXPECT_TRUE(c_strtol("99999999999999999999").overflow);
  EXPECT_EQ(c_strtol("99999999999999999999").value, INT64_MAX);
  EXPECT_EQ(c_strtol("-99999999999999999999").value, INT64_MIN);
  EXPECT_EQ(c_strtol("ffffffffffffffff", 16).value, INT64_MAX);  // strtol saturates
}

TEST(TopoNumbers, BusIdsAsNcclReadsThem) {
  EXPECT_EQ(bus_id_to_int("0000:1a:00.0"), 0x1a000);
  EXPECT_EQ(bus_id_to_int("0001:00:00.0"), 0x100000);
  EXPECT_EQ(bus_id_to_int("0000:00:06.0"), 0x60);
  EXPECT_EQ(bus_id_to_int("ffff:ff:01.0"), 0xffffff010);
  EXPECT_EQ(bus_id_to_int("fffffff:ff:ff.0"), 0xfffffffffff0);
  EXPECT_EQ(bus_id_to_int("0000:zz:00.0"), 0x0);  // stops at the first non-hex character
}

TEST(TopoNumbers, GuidNeedsTheLiteralPrefix) {
  EXPECT_EQ(c_scan_hex_with_prefix("0x209cc20100380008").value(), 0x209cc20100380008ULL);
  EXPECT_EQ(c_scan_hex_with_prefix("0x0").value(), 0u);
  EXPECT_FALSE(c_scan_hex_with_prefix("209cc20100380008").has_value());
  EXPECT_FALSE(c_scan_hex_with_prefix("0X12").has_value());
}

TEST(TopoNumbers, PrefixDictionariesWithFallbacks) {
  EXPECT_EQ(pcie_speed_code("32.0 GT/s PCIe").value, 240);
  EXPECT_EQ(pcie_speed_code("32 GT/s PCIe/s").value, 240);
  EXPECT_EQ(pcie_speed_code("2.5 GT/s PCIe").value, 15);
  EXPECT_EQ(pcie_speed_code("5.0 GT/s PCIe").value, 30);
  EXPECT_EQ(pcie_speed_code("64.0 GT/s PCIe").value, 480);
  const DictValue no_suffix = pcie_speed_code("5.0 GT/s");  // quirk Q4: Gen3, not Gen2
  EXPECT_EQ(no_suffix.value, 60);
  EXPECT_FALSE(no_suffix.matched);
  EXPECT_FALSE(pcie_speed_code("").matched);
  EXPECT_FALSE(pcie_speed_code("Unknown").matched);
  EXPECT_EQ(pci_class_to_type("0x060400").value, kPci);
  EXPECT_EQ(pci_class_to_type("0x068000").value, kNvs);
  EXPECT_EQ(pci_class_to_type("0x068001").value, kCpu);
  EXPECT_EQ(pci_class_to_type("0x030200").value, kGpu);
  EXPECT_EQ(pci_class_to_type("0x020700").value, kNic);
  EXPECT_EQ(pci_class_to_type("0x123456").value, kPci);
  EXPECT_FALSE(pci_class_to_type("0x123456").matched);
  EXPECT_EQ(cpu_vendor_value("  Shanghai  ").value, kVendorZhaoxin);
  EXPECT_EQ(cpu_arch_value("riscv64").value, 0);
  EXPECT_EQ(kv_convert_line("", 60), "KV Convert to int : could not find value of '' in dictionary, falling back to 60");
}

TEST(TopoNumbers, BandwidthFormulas) {
  EXPECT_EQ(pcie_bw(16, 240), 48.0f);
  EXPECT_EQ(pcie_bw(0, 240), 48.0f);  // width 0 means x16
  EXPECT_EQ(pcie_bw(1, 15), 0.1875f);
  EXPECT_EQ(pcie_bw(8, 60), 6.0f);
  EXPECT_EQ(pcie_bw(16, 480), 96.0f);
  EXPECT_EQ(nvlink_bw_per_link(121), 40.1f);
  EXPECT_EQ(nvlink_bw_per_link(90), 20.6f);
  EXPECT_EQ(nvlink_bw_per_link(86), 12.0f);
  EXPECT_EQ(nvlink_bw_per_link(87), 20.0f);
  EXPECT_EQ(nvlink_bw_per_link(70), 20.0f);
  EXPECT_EQ(nvlink_bw_per_link(60), 18.0f);
  EXPECT_EQ(nvlink_bw_per_link(52), 20.0f);
  EXPECT_EQ(intel_cpu_model(6, 0xCF), kModelIntelErp);
  EXPECT_EQ(intel_cpu_model(6, 0x8F), kModelIntelSrp);
  EXPECT_EQ(intel_cpu_model(6, 106), kModelIntelSkl);
  EXPECT_EQ(intel_cpu_model(6, 0x4F), kModelIntelBdw);
  EXPECT_EQ(intel_cpu_model(15, 0xCF), kModelIntelBdw);
  EXPECT_EQ(zhaoxin_cpu_model(7, 0x5B), kModelYongfeng);
  EXPECT_EQ(inter_cpu_bw(kArchX86, kVendorIntel, kModelIntelErp), 40.0f);
  EXPECT_EQ(inter_cpu_bw(kArchX86, kVendorIntel, kModelIntelSrp), 22.0f);
  EXPECT_EQ(inter_cpu_bw(kArchX86, kVendorIntel, kModelIntelSkl), 10.0f);
  EXPECT_EQ(inter_cpu_bw(kArchX86, kVendorIntel, kModelIntelBdw), 6.0f);
  EXPECT_EQ(inter_cpu_bw(kArchX86, kVendorAmd, kUndefined), 16.0f);
  EXPECT_EQ(inter_cpu_bw(kArchX86, kVendorZhaoxin, kModelYongfeng), 9.0f);
  EXPECT_EQ(inter_cpu_bw(kArchX86, kVendorZhaoxin, kUndefined), 6.0f);
  EXPECT_EQ(inter_cpu_bw(kArchPower, kUndefined, kUndefined), 32.0f);
  EXPECT_EQ(inter_cpu_bw(kArchArm, kUndefined, kUndefined), 6.0f);
  EXPECT_EQ(inter_cpu_bw(0, kUndefined, kUndefined), kLocBw);
  EXPECT_EQ(inter_cpu_bw(kArchX86, 0, kUndefined), kLocBw);
}

TEST(TopoNumbers, PrintfRoundingIsTiesToEvenOnTheFloat) {
  EXPECT_EQ(format_bw(0.1875f), "0.2");
  EXPECT_EQ(format_bw(0.3125f), "0.3");
  EXPECT_EQ(format_bw(0.375f), "0.4");
  EXPECT_EQ(format_bw(1.25f), "1.2");
  EXPECT_EQ(format_bw(0.25f), "0.2");
  EXPECT_EQ(format_bw(0.75f), "0.8");
  EXPECT_EQ(format_bw(12.5f), "12.5");
  EXPECT_EQ(format_bw(18 * 20.6f), "370.8");
  EXPECT_EQ(format_bw(18 * 40.1f), "721.8");
  EXPECT_EQ(format_bw(5000.0f), "5000.0");
  EXPECT_EQ(format_f6(0.3125f), "0.312500");
  EXPECT_EQ(format_f6(50.0f), "50.000000");
}

TEST(TopoNumbers, NodeIdsPrintLikeNccl) {
  EXPECT_EQ(nccl_node_id(kGpu, compose_id(0, 0x1a000)), "GPU/0-1a000");
  EXPECT_EQ(nccl_node_id(kCpu, compose_id(0, -1)), "CPU/0-ffffffffffffff");
  EXPECT_EQ(nccl_node_id(kNet, compose_id(0, 12)), "NET/0-c");
  EXPECT_EQ(nccl_node_id(kNvs, 0), "NVS/0-0");
  EXPECT_EQ(nccl_node_id(kGpu, compose_id(1, 0x8000)), "GPU/1-8000");
  EXPECT_EQ(cap_nccl_line(std::string(2000, 'x')).size(), kNcclLineBytes);
}

TEST(TopoNumbers, BroadcomSwitchGenerations) {
  EXPECT_EQ(broadcom_switch_generation(0x1000c03010000104ULL, 0), 5);  // PEX89xxx, subsystem 0x0XXX
  EXPECT_EQ(broadcom_switch_generation(0x1000c03010001003ULL, 1), 5);  // level 1: 0x1XXX
  EXPECT_EQ(broadcom_switch_generation(0x1000c03010001003ULL, 0), 0);
  EXPECT_EQ(broadcom_switch_generation(0x1000c0101000a123ULL, 0), 4);  // PEX88xxx at any level
  EXPECT_EQ(broadcom_switch_generation(0x1000c0301000ffffULL, 0), 0);  // after flattening: never again
  EXPECT_EQ(broadcom_switch_generation(0x15b3197600000000ULL, 0), 0);
}

}  // namespace
}  // namespace linkscope::topo
