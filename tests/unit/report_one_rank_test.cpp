// A collective over one rank moves no data between GPUs: the report draws no busbw curve for it (its "busbw" is 0,
// or a local copy's rate), while two ranks still get theirs.
#include <fstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/run_file.hpp"
#include "report/report_data.hpp"

namespace linkscope::report {
namespace {

nlohmann::json one_gpu_run_with(int nranks) {
  std::ifstream file(std::string(LINKSCOPE_SOURCE_DIR) + "/tests/corpus/bases/h200-1gpu-pcie.json");
  nlohmann::json run = nlohmann::json::parse(file);
  run["measurements"]["collectives"] = {
      {{"op", "sendrecv"}, {"nranks", nranks}, {"graph", false}, {"env", nlohmann::json::object()},
       {"points", {{{"bytes", 1 << 30}, {"in_place", false}, {"time_us", {{"median", 560.0}}}, {"algbw_gbps", 1917.0},
                    {"busbw_gbps", 1917.0}, {"wrong", 0}, {"status", "ok"}}}}}};
  return run;
}

TEST(ReportOneRank, NoBusbwCurveForOneRankButTheTableRowStays) {
  const model::Run one = model::run_from_json(one_gpu_run_with(1), "one rank");
  const ReportData data = collect_report_data(one);
  EXPECT_TRUE(data.busbw_curves.empty());
  EXPECT_EQ(data.collective_rows.size(), 1u);
  const model::Run two = model::run_from_json(one_gpu_run_with(2), "two ranks");
  EXPECT_EQ(collect_report_data(two).busbw_curves.size(), 1u);
}

}  // namespace
}  // namespace linkscope::report
