// The path ladder as `linkscope ladder` prints it (report/ladder_table), from the typed model.
#include <gtest/gtest.h>

#include "golden/saved_run.hpp"
#include "model/ladder.hpp"
#include "model/link_rate.hpp"
#include "model/run_file.hpp"
#include "plan/ladder_plan.hpp"
#include "report/ladder_table.hpp"
#include "support/run_command.hpp"

namespace linkscope::report {
namespace {

using nlohmann::json;

// The 2 x H200 machine's facts: NV18 through NVSwitch (18 x 26.562 GB/s), PCIe Gen5 x16.
model::System h200_system() { return model::read_run_file(test::fixture("runs/h200x2-healthy.json")).system; }

model::Ladder two_gpu_ladder() {
  model::Ladder ladder;
  ladder.op = "all_reduce";
  ladder.dtype = "float";
  ladder.nranks = 2;
  ladder.layers = plan::ladder_layers(std::string("NVL"));
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
  return ladder;
}

TEST(LadderTable, LayersEfficiencySlowdownAndTable) {
  const auto layers = plan::ladder_layers(std::string("NVL"));
  ASSERT_EQ(layers.size(), 6u);
  EXPECT_EQ(layers[1].env.at("NCCL_P2P_LEVEL"), "NVL");
  EXPECT_EQ(layers[3].env.at("NCCL_SHM_DISABLE"), "1");
  EXPECT_EQ(layers[5].env.at("NCCL_ALGO"), "Tree");
  EXPECT_EQ(plan::ladder_layers(std::nullopt)[1].status, "skipped");

  const model::Ladder ladder = two_gpu_ladder();
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
  EXPECT_NE(table.find("NVLink 18 x 26.562 GB/s"), std::string::npos) << table;
  EXPECT_NE(table.find("PCIe Gen5 x16 through host memory"), std::string::npos) << table;
  EXPECT_NE(table.find("error: child exited with 3"), std::string::npos);
  const json j = model::to_json(ladder);
  EXPECT_EQ(j.at("layers")[0].at("transport"), "P2P/direct pointer");
  EXPECT_NEAR(j.at("layers")[0].at("peak_gbps").get<double>(), 478.116, 0.001);
  EXPECT_TRUE(j.at("layers")[3].at("busbw_gbps").is_null());
  EXPECT_EQ(j.at("layers")[1].at("status"), "ok");
}

TEST(LadderTable, ASavedLadderRunPrintsTheLiveTable) {
  model::Run run = model::make_run("ladder", {"linkscope", "ladder"});
  run.measurements.ladder = two_gpu_ladder();
  const std::string note = "# peaks need hardware facts: pass --system FILE (a Run document with a `system` section)\n";
  EXPECT_EQ(render_ladder_text(run), render_ladder_table(*run.measurements.ladder) + note);
  test::expect_report_prints_the_live_text(run, render_ladder_text(run));
  run.system = h200_system();
  EXPECT_EQ(render_ladder_text(run), render_ladder_table(*run.measurements.ladder));
  test::expect_report_prints_the_live_text(run, render_ladder_text(run));
}

}  // namespace
}  // namespace linkscope::report
