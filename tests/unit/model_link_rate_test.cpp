// What a link can carry (model/link_rate): the one place every rule, hypothesis, table and the ladder ask. Pins the
// H200, A100 and V100 NVLink rates and the PCIe Gen3/4/5 rates, and the path peaks of the ladder's transports.
#include <gtest/gtest.h>

#include "model/link_rate.hpp"

namespace linkscope::model {
namespace {

using nlohmann::json;

json gpu(int ordinal, int links, double speed, int version, const std::string& remote) {
  json nvlinks = json::array();
  for (int link = 0; link < links; ++link) {
    json entry = {{"link", link}, {"active", true}, {"version", version}, {"remote_type", remote}};
    if (speed > 0) entry["speed_gbps"] = speed;
    nvlinks.push_back(entry);
  }
  const json pcie = {{"current_gen", 1}, {"max_gen", 5}, {"current_width", 16}, {"max_width", 16}};  // idle: Gen1
  return {{"cuda_ordinal", ordinal}, {"pci_bdf", "0000:0" + std::to_string(ordinal) + ":00.0"}, {"pcie", pcie},
          {"nvlinks", nvlinks}};
}

// The H200 pair of docs/run-schema.md's `system` contract: NV18 through NVSwitch, PCIe Gen5 x16, one NIC.
json h200_system() {
  return {{"gpus", {gpu(0, 18, 26.562, 4, "nvswitch"), gpu(1, 18, 26.562, 4, "nvswitch")}},
          {"pairs", {{{"a", 0}, {"b", 1}, {"relation", "NV18"}, {"nvlink_count", 18}}}},
          {"nics", {{{"name", "mlx5_0"}, {"kind", "infiniband"}, {"ports", {{{"port", 1}, {"rate_gbps", 400.0}}}}}}}};
}

System typed(const json& system) { return system_from_json(JsonReader::root(system, "test system")); }

TEST(LinkRate, PcieGenerationsAndWidths) {
  EXPECT_NEAR(*pcie_rate_gbps(3, 16), 15.754, 0.001);
  EXPECT_NEAR(*pcie_rate_gbps(4, 16), 31.508, 0.001);
  EXPECT_NEAR(*pcie_rate_gbps(5, 16), 63.015, 0.001);
  EXPECT_NEAR(*pcie_rate_gbps(3, 8), 7.877, 0.001);
  EXPECT_NEAR(*pcie_rate_gbps(1, 16), 4.0, 1e-9);
  EXPECT_NEAR(*pcie_rate_gbps(6, 16), 121.0, 1e-9);
  EXPECT_FALSE(pcie_rate_gbps(9, 16).has_value());
  EXPECT_FALSE(pcie_rate_gbps(5, 0).has_value());
}

TEST(LinkRate, H200A100AndV100NvlinkPairs) {
  // H200: 18 NVLink4 links into the NVSwitch fabric at NVML's 26.562 GB/s each.
  const auto h200 = gpu_pair_rate(typed(h200_system()), 0, 1);
  ASSERT_TRUE(h200);
  EXPECT_NEAR(h200->gbps, 478.116, 0.001);
  EXPECT_EQ(h200->basis, "NVLink 18 x 26.562 GB/s");
  EXPECT_TRUE(h200->nvlink());
  // A100 (HGX, NVSwitch): 12 NVLink3 links, 25 GB/s each when NVML gives no speed.
  const auto a100 = gpu_pair_rate(typed({{"gpus", {gpu(0, 12, 0, 3, "nvswitch"), gpu(1, 12, 0, 3, "nvswitch")}},
                                         {"pairs", {{{"a", 0}, {"b", 1}, {"relation", "NV12"}, {"nvlink_count", 12}}}}}),
                                  0, 1);
  ASSERT_TRUE(a100);
  EXPECT_DOUBLE_EQ(a100->gbps, 300.0);
  // V100 (DGX-1 hybrid cube mesh): two direct NVLink2 links between a pair, 25 GB/s each.
  const auto v100 = gpu_pair_rate(typed({{"gpus", {gpu(0, 6, 25.0, 2, "gpu"), gpu(1, 6, 25.0, 2, "gpu")}},
                                         {"pairs", {{{"a", 0}, {"b", 1}, {"relation", "NV2"}, {"nvlink_count", 2}}}}}),
                                  0, 1);
  ASSERT_TRUE(v100);
  EXPECT_DOUBLE_EQ(v100->gbps, 50.0);
  EXPECT_EQ(v100->basis, "NVLink 2 x 25 GB/s");
  EXPECT_DOUBLE_EQ(*nvlink_version_gbps(2), 25.0);
  EXPECT_DOUBLE_EQ(*nvlink_version_gbps(4), 26.5625);
}

TEST(LinkRate, ThroughTheFabricTheEndWithFewerActiveLinksBounds) {
  json system = h200_system();
  for (int link = 16; link < 18; ++link) system["gpus"][1]["nvlinks"][link]["active"] = false;
  const auto rate = gpu_pair_rate(typed(system), 0, 1);
  ASSERT_TRUE(rate);
  EXPECT_NEAR(rate->gbps, 16 * 26.562, 1e-9);
  EXPECT_EQ(rate->basis, "NVLink 16 x 26.562 GB/s");
}

TEST(LinkRate, PcieUsesTheMaximumGenerationAtTheTrainedWidth) {
  json system = h200_system();
  system["pairs"][0]["nvlink_count"] = 0;
  system["pairs"][0]["relation"] = "PHB";
  system["gpus"][1]["pcie"]["current_width"] = 8;  // a link trained to x8 is what the path really has
  const auto rate = gpu_pair_rate(typed(system), 0, 1);
  ASSERT_TRUE(rate);
  EXPECT_NEAR(rate->gbps, 31.508, 0.001);
  EXPECT_EQ(rate->basis, "PCIe Gen5 x8");
  EXPECT_FALSE(rate->nvlink());
}

TEST(LinkRate, NicPortsAndHostLinks) {
  const System system = typed(h200_system());
  const auto nic = nic_rate(system.nics.at(0));
  ASSERT_TRUE(nic);
  EXPECT_DOUBLE_EQ(nic->gbps, 50.0);
  EXPECT_DOUBLE_EQ(named_nic_rate(system, "mlx5_0:1")->gbps, 50.0);
  EXPECT_FALSE(named_nic_rate(system, "mlx5_0:2").has_value());
  EXPECT_NEAR(host_link_rate(system.gpus.at(0))->gbps, 63.015, 0.001);
  json c2c = h200_system();
  // GH200: NVML reports 45000 MB/s per C2C link, 10 links (the <c2c bw="45000" count="10"/> NCCL writes).
  c2c["gpus"][0]["c2c"] = {{"active_links", 10}, {"max_bw_gbps", 45.0}};
  const auto host = host_link_rate(typed(c2c).gpus.at(0));
  ASSERT_TRUE(host);
  EXPECT_DOUBLE_EQ(host->gbps, 450.0);
  EXPECT_EQ(host->basis, "C2C 10 x 45 GB/s");
  EXPECT_EQ(host->kind, LinkRate::Kind::kC2c);
}

TEST(LinkRate, PathPeaksOfTheLadderTransports) {
  const System system = typed(h200_system());
  auto peak = path_peak(system, "P2P/CUMEM/read", {0, 1});
  ASSERT_TRUE(peak.peak_gbps.has_value()) << peak.reason;
  EXPECT_NEAR(*peak.peak_gbps, 478.116, 0.001);
  EXPECT_EQ(peak.basis, "NVLink 18 x 26.562 GB/s");
  peak = path_peak(system, "SHM", {0, 1});
  EXPECT_NEAR(*peak.peak_gbps, 63.015, 0.001);
  EXPECT_EQ(peak.basis, "PCIe Gen5 x16 through host memory");
  peak = path_peak(system, "NET/IB/GDRDMA", {0, 1});
  EXPECT_DOUBLE_EQ(*peak.peak_gbps, 50.0);
  EXPECT_EQ(peak.basis, "NIC mlx5_0 400 Gb/s");
  EXPECT_TRUE(peak.reason.empty());
  peak = path_peak(system, "NET/Socket", {0, 1});
  EXPECT_NE(peak.reason.find("loopback"), std::string::npos);
  json fast_nic = h200_system();
  fast_nic["nics"] = {{{"name", "eth0"}, {"speed_mbps", 800000}}};  // 800 Gb/s NIC behind Gen5 x16
  peak = path_peak(typed(fast_nic), "NET/Socket", {0, 1});
  EXPECT_NEAR(*peak.peak_gbps, 63.015, 0.001);
  EXPECT_NE(peak.basis.find("below the NIC eth0 800 Gb/s"), std::string::npos) << peak.basis;
}

TEST(LinkRate, PathPeakWithoutFacts) {
  EXPECT_EQ(path_peak(System{}, "P2P/CUMEM", {0, 1}).reason, "hardware facts not collected");
  const System system = typed(h200_system());
  EXPECT_FALSE(path_peak(system, "P2P/CUMEM", {0}).peak_gbps.has_value());
  EXPECT_NE(path_peak(system, "SHM", {0, 5}).reason.find("GPU 5"), std::string::npos);
  EXPECT_NE(path_peak(system, "COLLNET", {0, 1}).reason.find("no peak model"), std::string::npos);
  json no_nic = h200_system();
  no_nic.erase("nics");
  EXPECT_EQ(path_peak(typed(no_nic), "NET/IB", {0, 1}).reason, "no NIC speed in the hardware facts");
  json no_speed = h200_system();
  for (auto& g : no_speed["gpus"]) {
    for (auto& link : g["nvlinks"]) {
      link.erase("speed_gbps");
      link.erase("version");
    }
  }
  EXPECT_NE(path_peak(typed(no_speed), "P2P/CUMEM", {0, 1}).reason.find("no link speed"), std::string::npos);
}

TEST(LinkRate, RingOfThreeTakesTheSlowestNeighbourPair) {
  json system = h200_system();
  system["gpus"] = {gpu(0, 18, 26.562, 4, "gpu"), gpu(1, 18, 26.562, 4, "gpu"), gpu(2, 18, 26.562, 4, "gpu")};
  system["pairs"] = {{{"a", 0}, {"b", 1}, {"nvlink_count", 18}}, {{"a", 1}, {"b", 2}, {"nvlink_count", 2}},
                     {{"a", 2}, {"b", 0}, {"nvlink_count", 18}}};
  const auto peak = path_peak(typed(system), "P2P/CUMEM", {0, 1, 2});
  EXPECT_NEAR(*peak.peak_gbps, 2 * 26.562, 1e-9);
}

}  // namespace
}  // namespace linkscope::model
