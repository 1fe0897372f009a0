// What `linkscope ladder` prints for its run (report/ladder_table's render_ladder_text), live and from the saved
// run. The table itself is tested in ladder_test.cpp.
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

// The default layer and P2P taken away on the 2 x H200 machine (the anchors' 326.4 and 27.4 GB/s at 1 GiB).
model::Run ladder_run() {
  const model::System h200 = model::read_run_file(test::fixture("runs/h200x2-healthy.json")).system;
  model::Run run = model::make_run("ladder", {"linkscope", "ladder"});
  model::Ladder ladder;
  ladder.op = "all_reduce";
  ladder.dtype = "float";
  ladder.nranks = 2;
  ladder.layers = plan::ladder_layers(std::nullopt);
  for (auto& [layer, transport, busbw] : {std::make_tuple(&ladder.layers[0], "P2P/direct pointer", 326.4),
                                          std::make_tuple(&ladder.layers[2], "SHM", 27.4)}) {
    layer->transport = transport;
    layer->busbw_gbps = busbw;
    layer->bytes = 1ULL << 30;
    layer->peak = model::path_peak(h200, transport, {0, 1});
  }
  model::finish_ladder(ladder);
  run.measurements.ladder = ladder;
  return run;
}

TEST(LadderText, ASavedLadderRunPrintsTheLiveTable) {
  model::Run run = ladder_run();
  const std::string note = "# peaks need hardware facts: pass --system FILE (a Run document with a `system` section)\n";
  EXPECT_EQ(render_ladder_text(run), render_ladder_table(*run.measurements.ladder) + note);
  test::expect_report_prints_the_live_text(run, render_ladder_text(run));
  run.system = model::read_run_file(test::fixture("runs/h200x2-healthy.json")).system;
  const std::string with_facts = render_ladder_text(run);
  EXPECT_EQ(with_facts, render_ladder_table(*run.measurements.ladder));
  EXPECT_NE(with_facts.find("NVLink 18 x 26.562 GB/s"), std::string::npos) << with_facts;
  EXPECT_NE(with_facts.find("PCIe Gen5 x16 through host memory"), std::string::npos) << with_facts;
  test::expect_report_prints_the_live_text(run, with_facts);
}

}  // namespace
}  // namespace linkscope::report
