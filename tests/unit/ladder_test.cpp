#include <gtest/gtest.h>

#include "model/link_rate.hpp"
#include "plan/ladder_plan.hpp"
#include "report/ladder_table.hpp"

namespace linkscope::report {
namespace {

using model::Ladder;
using nlohmann::json;

// The H200 pair: NV18 through NVSwitch, PCIe Gen5 x16.
model::System h200_system() {
  json nvlinks = json::array();
  for (int link = 0; link < 18; ++link) {
    nvlinks.push_back({{"link", link}, {"active", true}, {"version", 4}, {"speed_gbps", 26.562}, {"remote_type", "nvswitch"}});
  }
  const json pcie = {{"current_gen", 1}, {"max_gen", 5}, {"current_width", 16}, {"max_width", 16}};
  const json system = {{"gpus",
                        {{{"cuda_ordinal", 0}, {"pci_bdf", "0000:00:06.0"}, {"pcie", pcie}, {"nvlinks", nvlinks}},
                         {{"cuda_ordinal", 1}, {"pci_bdf", "0000:00:07.0"}, {"pcie", pcie}, {"nvlinks", nvlinks}}}},
                       {"pairs", {{{"a", 0}, {"b", 1}, {"relation", "NV18"}, {"nvlink_count", 18}}}}};
  return model::system_from_json(model::JsonReader::root(system, "test"));
}

TEST(LadderTable, LayersEfficiencySlowdownAndTable) {
  auto layers = plan::ladder_layers(std::string("NVL"));
  ASSERT_EQ(layers.size(), 6u);
  EXPECT_EQ(layers[1].env.at("NCCL_P2P_LEVEL"), "NVL");
  EXPECT_EQ(layers[3].env.at("NCCL_SHM_DISABLE"), "1");
  EXPECT_EQ(layers[5].env.at("NCCL_ALGO"), "Tree");
  EXPECT_EQ(plan::ladder_layers(std::nullopt)[1].status, "skipped");

  Ladder ladder;
  ladder.op = "all_reduce";
  ladder.dtype = "float";
  ladder.nranks = 2;
  ladder.layers = layers;
  ladder.layers[0].transport = "P2P/direct pointer";
  ladder.layers[0].busbw_gbps = 314.2;
  ladder.layers[0].bytes = 536870912;
  ladder.layers[0].peak = model::path_peak(h200_system(), "P2P/direct pointer", {0, 1});
  ladder.layers[2].transport = "SHM";
  ladder.layers[2].busbw_gbps = 27.4;
  ladder.layers[2].peak = model::path_peak(h200_system(), "SHM", {0, 1});
  ladder.layers[3].status = "error";
  ladder.layers[3].reason = "child exited with 3";
  ladder.layers[4].busbw_gbps = 0;
  model::finish_ladder(ladder);
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
  const json j = model::to_json(ladder);
  EXPECT_EQ(j.at("layers")[0].at("transport"), "P2P/direct pointer");
  EXPECT_NEAR(j.at("layers")[0].at("peak_gbps").get<double>(), 478.116, 0.001);
  EXPECT_TRUE(j.at("layers")[3].at("busbw_gbps").is_null());
  EXPECT_EQ(j.at("layers")[1].at("status"), "ok");
}

}  // namespace
}  // namespace linkscope::report
