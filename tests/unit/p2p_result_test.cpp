#include "model/p2p.hpp"

#include <gtest/gtest.h>

namespace linkscope::model {
namespace {

CopyPoint point(int src, int dst, std::uint64_t bytes, double time_us, const std::string& method = "ce") {
  CopyPoint p;
  p.src = src;
  p.dst = dst;
  p.method = method;
  p.initiator = "dst";
  p.bytes = bytes;
  p.samples = 6;
  p.time_us = Stat3{time_us, time_us * 0.99, time_us * 1.01};
  const double gbps = static_cast<double>(bytes) / (time_us * 1e-6) / 1e9;
  p.bandwidth_gbps = Stat3{gbps, gbps * 0.99, gbps * 1.01};
  return p;
}

TEST(P2pResult, SmallCopiesAreMarkedLatencyDominated) {
  std::vector<CopyPoint> points = {point(0, 1, 1024, 2.0), point(0, 1, 1 << 20, 4.6), point(0, 1, 64 << 20, 170.0)};
  mark_latency_dominated(points, {});
  EXPECT_TRUE(points[0].latency_dominated);   // the fixed cost itself
  EXPECT_FALSE(points[2].latency_dominated);  // 2 us of 170 us
  EXPECT_FALSE(points[1].latency_dominated);  // 2.0 / 4.6 < 0.5
  points[1].time_us->median = 3.9;
  mark_latency_dominated(points, {});
  EXPECT_TRUE(points[1].latency_dominated);   // 2.0 / 3.9 >= 0.5
}

TEST(P2pResult, ALoneLargeSizeIsNotCalledLatencyDominated) {
  std::vector<CopyPoint> points = {point(0, 1, 512 << 20, 1363.0)};
  mark_latency_dominated(points, {});
  EXPECT_FALSE(points[0].latency_dominated);
  // A CE curve without small sizes uses the pair's small-copy latency as the fixed cost.
  std::vector<CopyPoint> mid = {point(0, 1, 256 << 10, 3.0)};
  LatencyPoint latency;
  latency.src = 0;
  latency.dst = 1;
  latency.method = "ce_small_copy";
  latency.latency_ns = Stat3{2500, 2400, 2600};
  mark_latency_dominated(mid, {latency});
  EXPECT_TRUE(mid[0].latency_dominated);
}

TEST(P2pResult, AsymmetryIsTheLargestRelativeDifferencePerSize) {
  std::vector<CopyPoint> points = {point(0, 1, 1 << 20, 10.0), point(1, 0, 1 << 20, 12.0),
                                   point(0, 2, 1 << 20, 10.0), point(2, 0, 1 << 20, 10.1),
                                   point(0, 1, 4 << 20, 20.0), point(1, 0, 4 << 20, 20.0),
                                   point(0, 1, 4 << 20, 30.0, "sm_read")};
  const auto rows = asymmetry_by_size(points);
  ASSERT_EQ(rows.size(), 2u);  // the sm point has no reverse direction
  EXPECT_EQ(rows[0].bytes, 1u << 20);
  EXPECT_EQ(rows[0].a, 0);
  EXPECT_EQ(rows[0].b, 1);
  const double x = (1 << 20) / 10e-6, y = (1 << 20) / 12e-6;
  EXPECT_NEAR(rows[0].max_relative, (x - y) / ((x + y) / 2), 1e-9);
  EXPECT_NEAR(rows[1].max_relative, 0.0, 1e-12);
}

TEST(P2pResult, JsonRoundTripKeepsNullsAndStatuses) {
  P2pResults results;
  results.request.sizes = {1024};
  results.request.pairs = plan::parse_pairs("0>1,0>2");
  results.devices.push_back({0, "NVIDIA H200", "0000:00:06.0", "GPU-abc", 132, "9.0"});
  results.points.push_back(point(0, 1, 1024, 2.0));
  CopyPoint na;
  na.src = 0;
  na.dst = 2;
  na.method = "sm_read";
  na.bytes = 1024;
  na.status = PointStatus::kNa;
  na.reason = "no peer access";
  results.points.push_back(na);
  HostPoint h;
  h.gpu = 0;
  h.direction = "h2d";
  h.bytes = 1 << 20;
  h.wrong = 3;
  h.status = PointStatus::kWrong;
  results.host.push_back(h);
  const auto json = to_json(results);
  EXPECT_TRUE(json["points"][1]["bandwidth_gbps"].is_null());
  EXPECT_EQ(json["points"][1]["status"], "na");
  EXPECT_EQ(json["points"][1]["reason"], "no peer access");
  EXPECT_TRUE(json["points"][0]["reason"].is_null());
  EXPECT_EQ(json["wrong"], 3);
  const auto back = p2p_results_from_json(JsonReader::root(json, "test"));
  ASSERT_EQ(back.points.size(), 2u);
  EXPECT_FALSE(back.points[1].bandwidth_gbps.has_value());
  EXPECT_EQ(back.points[1].status, PointStatus::kNa);
  EXPECT_DOUBLE_EQ(back.points[0].bandwidth_gbps->median, results.points[0].bandwidth_gbps->median);
  EXPECT_EQ(back.devices[0].pci_bdf, "0000:00:06.0");
  EXPECT_EQ(back.host[0].status, PointStatus::kWrong);
  EXPECT_EQ(total_wrong(back), 3u);
  EXPECT_TRUE(any_status(back, PointStatus::kNa));
  EXPECT_FALSE(any_status(back, PointStatus::kTimeout));
}

TEST(P2pResult, JsonKeepsRepeatModeTotalsAndChaseVariant) {
  P2pResults results;
  CopyPoint sm = point(0, 1, 512ull << 20, 1427.0, "sm_read");
  sm.sm_kernel = "vec_nc t1024 c2 u4";
  sm.sm_repeat = "kernel";
  CopyPoint a = point(0, 1, 512ull << 20, 1378.1), b = point(1, 0, 512ull << 20, 1378.4);
  a.direction = b.direction = "bidir";
  a.total_gbps = b.total_gbps = Stat3{778.0, 777.8, 778.1};
  a.sum_gbps = b.sum_gbps = Stat3{779.1, 779.0, 779.3};
  results.points = {sm, a, b, point(0, 1, 4096, 13.0)};
  LatencyPoint chase;
  chase.method = "sm_pointer_chase";
  chase.bytes = 2 << 20;
  chase.chase = "stride plain 2M";
  chase.latency_ns = Stat3{829.5, 829.0, 830.0};
  results.latency = {chase};
  const auto json = to_json(results);
  EXPECT_EQ(json["points"][0]["sm_repeat"], "kernel");
  EXPECT_TRUE(json["points"][3]["sm_repeat"].is_null()) << "CE points have no repeat mode";
  EXPECT_EQ(json["points"][1]["sum_gbps"]["median"], 779.1);
  EXPECT_FALSE(json["points"][3].contains("sum_gbps")) << "only bidirectional points carry totals";
  EXPECT_EQ(json["latency"][0]["chase"], "stride plain 2M");
  const auto back = p2p_results_from_json(JsonReader::root(json, "test"));
  EXPECT_EQ(back.points[0].sm_repeat, "kernel");
  ASSERT_TRUE(back.points[2].sum_gbps.has_value());
  EXPECT_DOUBLE_EQ(back.points[2].sum_gbps->median, 779.1);
  EXPECT_DOUBLE_EQ(back.points[2].total_gbps->median, 778.0);
  EXPECT_EQ(back.latency[0].chase, "stride plain 2M");
}

}  // namespace
}  // namespace linkscope::model
