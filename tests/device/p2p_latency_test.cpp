// Latency by pointer chase and by small CE copies; bidirectional runs.
#include <algorithm>
#include <set>

#include "device_test_support.hpp"
#include "measure/latency_chase.hpp"
#include "measure/p2p_engine.hpp"

namespace linkscope {
namespace {

TEST(P2pLatency, ChainIsOneCycleThroughEveryNode) {
  // Host-side: no GPU needed.
  const std::uint64_t base = 0x10000000;
  const std::uint64_t footprint = 64 * measure::kChaseNodeBytes;
  const auto words = measure::build_chase_chain(base, footprint, 3);
  ASSERT_EQ(words.size(), footprint / 8);
  std::set<std::uint64_t> seen;
  std::uint64_t at = base;
  for (int step = 0; step < 64; ++step) {
    EXPECT_EQ((at - base) % measure::kChaseNodeBytes, 0u);
    seen.insert(at);
    at = words[(at - base) / 8];
    ASSERT_GE(at, base);
    ASSERT_LT(at, base + footprint);
  }
  EXPECT_EQ(at, base) << "the chain must close after visiting every node once";
  EXPECT_EQ(seen.size(), 64u);
}

plan::P2pRequest latency_only(const std::string& pairs) {
  plan::P2pRequest request;
  request.sizes = {4096};
  request.pairs = plan::parse_pairs(pairs);
  request.measure_copy = false;
  request.measure_host = false;
  request.sampling.max_time_s = 0.3;
  return request;
}

TEST(P2pLatency, PointerChaseIsPositiveAndBelow100us) {
  LINKSCOPE_REQUIRE_GPUS(1);
  const int count = platform::cuda_device_count_or_zero();
  const auto results = measure::run_p2p(latency_only(count >= 2 ? "0>1" : "0>0"), {});
  ASSERT_EQ(results.latency.size(), 2u);
  for (const auto& l : results.latency) {
    if (l.status == plan::PointStatus::kNa) continue;
    ASSERT_EQ(l.status, plan::PointStatus::kOk) << l.method << ": " << l.reason;
    ASSERT_TRUE(l.latency_ns.has_value());
    EXPECT_GT(l.latency_ns->min, 0.0) << l.method;
    EXPECT_LT(l.latency_ns->max, 100e3) << l.method;
    EXPECT_GE(l.samples, 1u);
  }
  EXPECT_EQ(results.latency[0].method, "sm_pointer_chase");
  EXPECT_EQ(results.latency[1].method, "ce_small_copy");
}

TEST(P2pLatency, BidirectionalRunReportsTwoDirectionsAndATotal) {
  LINKSCOPE_REQUIRE_GPUS(2);
  plan::P2pRequest request;
  request.sizes = {16 << 20};
  request.pairs = plan::parse_pairs("0>1");
  request.methods = {plan::CopyMethod::kCe};
  request.bidirectional = true;
  request.measure_latency = false;
  request.measure_host = false;
  request.sampling.max_time_s = 0.3;
  const auto results = measure::run_p2p(request, {});
  ASSERT_EQ(results.points.size(), 2u);
  const auto& a = results.points[0];
  const auto& b = results.points[1];
  if (a.status == plan::PointStatus::kNa) GTEST_SKIP() << a.reason;
  EXPECT_EQ(a.src, 0);
  EXPECT_EQ(a.dst, 1);
  EXPECT_EQ(b.src, 1);
  EXPECT_EQ(b.dst, 0);
  for (const auto* p : {&a, &b}) {
    EXPECT_EQ(p->direction, "bidir");
    EXPECT_EQ(p->status, plan::PointStatus::kOk) << p->reason;
    ASSERT_TRUE(p->total_gbps && p->bandwidth_gbps);
    // The total is over the shared window, so it cannot exceed the sum of the two directions by much, and it is
    // at least the larger one (each direction's own window lies inside the shared one).
    EXPECT_GE(p->total_gbps->median * 1.01, std::max(a.bandwidth_gbps->median, b.bandwidth_gbps->median));
    EXPECT_LE(p->total_gbps->median, (a.bandwidth_gbps->median + b.bandwidth_gbps->median) * 1.01);
  }
}

}  // namespace
}  // namespace linkscope
