#include <gtest/gtest.h>

#include "core/error.hpp"
#include "model/collectives.hpp"
#include "report/collective_text.hpp"

namespace linkscope::model {
namespace {

CollectiveSeries sample_series() {
  CollectiveSeries s;
  s.op = CollectiveOp::kAllReduce;
  s.nranks = 2;
  s.nccl_call = "ncclAllReduce";
  s.env = {{"NCCL_NVLS_ENABLE", "0"}};
  DeviceRecord d;
  d.rank = 1;
  d.host = "vm";
  d.cuda_device = 1;
  d.pci_bus = 7;
  d.uuid = "GPU-1";
  d.name = "NVIDIA H200";
  s.devices.push_back(d);
  CollectivePoint p;
  p.requested_bytes = p.bytes = 1 << 30;
  p.count = 1 << 28;
  p.samples = 9;
  p.time = TimeSummary{3273.9, 3260.0, 3300.0, 3275.0, 0.004, 0.002};
  p.stop_reason = "precision-reached";
  p.algbw_gbps = 327.96;
  p.busbw_gbps = 327.96;
  p.wrong = 0;
  s.points.push_back(p);
  CollectivePoint failed;
  failed.requested_bytes = failed.bytes = 1ULL << 31;
  failed.status = "timeout";
  failed.reason = "no progress";
  s.points.push_back(failed);
  return s;
}

TEST(CollectiveResult, JsonFollowsTheContractAndRoundTrips) {
  const CollectiveSeries s = sample_series();
  const auto j = to_json(s);
  EXPECT_EQ(j.at("op"), "all_reduce");
  EXPECT_EQ(j.at("dtype"), "float");
  EXPECT_EQ(j.at("redop"), "sum");
  EXPECT_EQ(j.at("time_reduction"), "max");
  EXPECT_EQ(j.at("devices")[0].at("pci_bdf"), "0000:07:00.0");
  const auto& p = j.at("points")[0];
  EXPECT_EQ(p.at("time_us").at("median"), 3273.9);
  EXPECT_EQ(p.at("busbw_gbps"), 327.96);
  EXPECT_EQ(p.at("wrong"), 0);
  EXPECT_EQ(p.at("status"), "ok");
  EXPECT_TRUE(j.at("points")[1].at("time_us").is_null());
  EXPECT_TRUE(j.at("points")[1].at("busbw_gbps").is_null()) << "unmeasured is null, never 0";
  const CollectiveSeries back = series_from_json(JsonReader::root(j, "test"));
  ASSERT_EQ(back.points.size(), 2u);
  EXPECT_DOUBLE_EQ(back.points[0].time->median_us, 3273.9);
  EXPECT_EQ(back.points[1].status, "timeout");
  EXPECT_EQ(back.devices[0].uuid, "GPU-1");
  EXPECT_EQ(back.env.at("NCCL_NVLS_ENABLE"), "0");
  EXPECT_EQ(largest_measured_point(back), &back.points[0]);
}

TEST(CollectiveResult, MalformedSeriesNamesTheSource) {
  try {
    series_from_json(JsonReader::root(nlohmann::json{{"op", "all_reduce"}}, "child.json"));
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("child.json"), std::string::npos);
  }
  const nlohmann::json bogus = {{"op", "bogus"}, {"dtype", "float"}, {"nranks", 2}, {"points", nlohmann::json::array()}};
  EXPECT_THROW(series_from_json(JsonReader::root(bogus, "x")), InputError);
}

TEST(CollectiveText, RowsShowTheDistributionAndFailures) {
  const CollectiveSeries s = sample_series();
  const std::string header = report::render_collective_header(s, "adaptive");
  EXPECT_NE(header.find("all_reduce float sum: 2 ranks (single-process), ncclAllReduce"), std::string::npos) << header;
  EXPECT_NE(header.find("the slowest rank"), std::string::npos);
  EXPECT_NE(header.find("median"), std::string::npos);
  const std::string row = report::render_collective_row(s.points[0]);
  EXPECT_EQ(row,
            "    1073741824     268435456    out    3273.90    3260.00    3300.00    0.40   327.96   327.96       0        9\n");
  const std::string failed = report::render_collective_row(s.points[1]);
  EXPECT_NE(failed.find("timeout: no progress"), std::string::npos) << failed;
  const std::string footer = report::render_collective_footer({s}, {1.5, "P2P/CUMEM/read (48 connections)"});
  EXPECT_NE(footer.find("peak busbw 327.96 GB/s at 1073741824 B"), std::string::npos) << footer;
  EXPECT_NE(footer.find("1 of 2 measurement(s) failed"), std::string::npos) << footer;
  EXPECT_NE(footer.find("NCCL transport: P2P/CUMEM/read"), std::string::npos) << footer;
}

}  // namespace
}  // namespace linkscope::model
