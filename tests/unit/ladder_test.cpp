#include <gtest/gtest.h>

#include "report/ladder_peak.hpp"
#include "report/ladder_table.hpp"

namespace linkscope::report {
namespace {

using nlohmann::json;

// The H200 pair of docs/run-schema.md's `system` contract: NV18 through NVSwitch, PCIe Gen5 x16, one NIC.
json h200_system() {
  json nvlinks = json::array();
  for (int link = 0; link < 18; ++link) {
    nvlinks.push_back({{"link", link}, {"active", true}, {"version", 4}, {"speed_gbps", 26.562}, {"remote_type", "nvswitch"}});
  }
  json pcie = {{"current_gen", 1}, {"max_gen", 5}, {"current_width", 16}, {"max_width", 16}};  // idle GPUs drop to Gen1
  return {{"gpus",
           {{{"cuda_ordinal", 0}, {"pci_bdf", "0000:00:06.0"}, {"pcie", pcie}, {"nvlinks", nvlinks}},
            {{"cuda_ordinal", 1}, {"pci_bdf", "0000:00:07.0"}, {"pcie", pcie}, {"nvlinks", nvlinks}}}},
          {"pairs", {{{"a", 0}, {"b", 1}, {"relation", "NV18"}, {"nvlink_count", 18}}}},
          {"nics", {{{"name", "mlx5_0"}, {"kind", "infiniband"}, {"ports", {{{"port", 1}, {"rate_gbps", 400.0}}}}}}}};
}

TEST(LadderPeak, PcieGenerationsAndWidths) {
  EXPECT_NEAR(*pcie_gbps(5, 16), 63.015, 0.001);
  EXPECT_NEAR(*pcie_gbps(4, 16), 31.508, 0.001);
  EXPECT_NEAR(*pcie_gbps(3, 8), 7.877, 0.001);
  EXPECT_NEAR(*pcie_gbps(1, 16), 4.0, 1e-9);
  EXPECT_NEAR(*pcie_gbps(6, 16), 121.0, 1e-9);
  EXPECT_FALSE(pcie_gbps(9, 16).has_value());
  EXPECT_FALSE(pcie_gbps(5, 0).has_value());
}

TEST(LadderPeak, NvlinkPairIsLinkCountTimesLinkSpeed) {
  const auto peak = path_peak(h200_system(), "P2P/CUMEM/read", {0, 1});
  ASSERT_TRUE(peak.peak_gbps.has_value()) << peak.reason;
  EXPECT_NEAR(*peak.peak_gbps, 478.116, 0.001);
  EXPECT_EQ(peak.basis, "NVLink 18 x 26.562 GB/s");
}

TEST(LadderPeak, SharedMemoryUsesTheSlowestPcieLinkAtItsMaximumGeneration) {
  const auto peak = path_peak(h200_system(), "SHM", {0, 1});
  ASSERT_TRUE(peak.peak_gbps.has_value()) << peak.reason;
  EXPECT_NEAR(*peak.peak_gbps, 63.015, 0.001);
  EXPECT_EQ(peak.basis, "PCIe Gen5 x16 through host memory");
}

TEST(LadderPeak, NetworkUsesTheNicAndWarnsAboutSocketLoopback) {
  auto peak = path_peak(h200_system(), "NET/IB/GDRDMA", {0, 1});
  ASSERT_TRUE(peak.peak_gbps.has_value());
  EXPECT_DOUBLE_EQ(*peak.peak_gbps, 50.0);
  EXPECT_EQ(peak.basis, "NIC mlx5_0 400 Gb/s");
  EXPECT_TRUE(peak.reason.empty());
  peak = path_peak(h200_system(), "NET/Socket", {0, 1});
  EXPECT_NE(peak.reason.find("loopback"), std::string::npos);
  json slow = h200_system();
  slow["nics"] = {{{"name", "eth0"}, {"speed_mbps", 800000}}};  // 800 Gb/s NIC behind Gen5 x16
  peak = path_peak(slow, "NET/Socket", {0, 1});
  EXPECT_NEAR(*peak.peak_gbps, 63.015, 0.001);
  EXPECT_NE(peak.basis.find("below the NIC's NIC eth0 800 Gb/s"), std::string::npos) << peak.basis;
}

TEST(LadderPeak, PcieOnlyPairAndMissingFacts) {
  json system = h200_system();
  system["pairs"][0]["nvlink_count"] = 0;
  system["gpus"][1]["pcie"]["current_width"] = 8;  // a link trained to x8 is what the path really has
  auto peak = path_peak(system, "P2P/IPC", {0, 1});
  ASSERT_TRUE(peak.peak_gbps.has_value());
  EXPECT_NEAR(*peak.peak_gbps, 31.508, 0.001);
  EXPECT_EQ(peak.basis, "PCIe Gen5 x8");

  EXPECT_EQ(path_peak(json::object(), "P2P/CUMEM", {0, 1}).reason, "hardware facts not collected");
  EXPECT_EQ(path_peak(nullptr, "SHM", {0, 1}).reason, "hardware facts not collected");
  EXPECT_FALSE(path_peak(h200_system(), "P2P/CUMEM", {0}).peak_gbps.has_value());
  EXPECT_NE(path_peak(h200_system(), "SHM", {0, 5}).reason.find("GPU 5"), std::string::npos);
  EXPECT_NE(path_peak(h200_system(), "COLLNET", {0, 1}).reason.find("no peak model"), std::string::npos);
  json no_nic = h200_system();
  no_nic.erase("nics");
  EXPECT_EQ(path_peak(no_nic, "NET/IB", {0, 1}).reason, "no NIC speed in the hardware facts");
  json no_speed = h200_system();
  for (auto& link : no_speed["gpus"][0]["nvlinks"]) link.erase("speed_gbps");
  EXPECT_NE(path_peak(no_speed, "P2P/CUMEM", {0, 1}).reason.find("no link speed"), std::string::npos);
}

TEST(LadderPeak, RingOfFourTakesTheSlowestNeighbourPair) {
  json system = h200_system();
  system["gpus"].push_back(system["gpus"][0]);
  system["gpus"][2]["cuda_ordinal"] = 2;
  system["pairs"] = {{{"a", 0}, {"b", 1}, {"nvlink_count", 18}}, {{"a", 1}, {"b", 2}, {"nvlink_count", 2}},
                     {{"a", 2}, {"b", 0}, {"nvlink_count", 18}}};
  const auto peak = path_peak(system, "P2P/CUMEM", {0, 1, 2});
  EXPECT_NEAR(*peak.peak_gbps, 2 * 26.562, 1e-9);
}

TEST(LadderTable, LayersEfficiencySlowdownAndTable) {
  auto layers = ladder_layers(std::string("NVL"));
  ASSERT_EQ(layers.size(), 6u);
  EXPECT_EQ(layers[1].env.at("NCCL_P2P_LEVEL"), "NVL");
  EXPECT_EQ(layers[3].env.at("NCCL_SHM_DISABLE"), "1");
  EXPECT_EQ(layers[5].env.at("NCCL_ALGO"), "Tree");
  EXPECT_EQ(ladder_layers(std::nullopt)[1].status, "skipped");

  Ladder ladder;
  ladder.op = "all_reduce";
  ladder.dtype = "float";
  ladder.nranks = 2;
  ladder.layers = layers;
  ladder.layers[0].transport = "P2P/direct pointer";
  ladder.layers[0].busbw_gbps = 314.2;
  ladder.layers[0].bytes = 536870912;
  ladder.layers[0].peak = path_peak(h200_system(), "P2P/direct pointer", {0, 1});
  ladder.layers[2].transport = "SHM";
  ladder.layers[2].busbw_gbps = 27.4;
  ladder.layers[2].peak = path_peak(h200_system(), "SHM", {0, 1});
  ladder.layers[3].status = "error";
  ladder.layers[3].reason = "child exited with 3";
  ladder.layers[4].busbw_gbps = 0;
  finish_ladder(ladder);
  EXPECT_NEAR(*ladder.layers[0].efficiency, 314.2 / 478.116, 1e-9);
  EXPECT_DOUBLE_EQ(*ladder.layers[0].slowdown, 1.0);
  EXPECT_NEAR(*ladder.layers[2].slowdown, 314.2 / 27.4, 1e-9);
  EXPECT_FALSE(ladder.layers[3].slowdown.has_value());
  EXPECT_FALSE(ladder.layers[4].slowdown.has_value()) << "0 GB/s has no finite slowdown";
  const std::string table = render_ladder_table(ladder);
  EXPECT_NE(table.find("all_reduce float, 2 ranks, busbw at the largest size (536870912 B)"), std::string::npos) << table;
  EXPECT_NE(table.find("p2p-level=NVL"), std::string::npos) << table;
  EXPECT_NE(table.find("SHM"), std::string::npos);
  EXPECT_NE(table.find("11.47x"), std::string::npos) << table;
  EXPECT_NE(table.find("66%"), std::string::npos) << table;
  EXPECT_NE(table.find("error: child exited with 3"), std::string::npos);
  const json j = to_json(ladder);
  EXPECT_EQ(j.at("layers")[0].at("transport"), "P2P/direct pointer");
  EXPECT_NEAR(j.at("layers")[0].at("peak_gbps").get<double>(), 478.116, 0.001);
  EXPECT_TRUE(j.at("layers")[3].at("busbw_gbps").is_null());
  EXPECT_EQ(j.at("layers")[1].at("status"), "ok");
}

}  // namespace
}  // namespace linkscope::report
