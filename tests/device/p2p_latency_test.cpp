// Latency by pointer chase and by small CE copies; bidirectional runs.
#include <algorithm>
#include <map>
#include <set>
#include <vector>

#include "device_test_support.hpp"
#include "measure/latency_chase.hpp"
#include "measure/p2p_engine.hpp"
#include "platform/cuda_check.hpp"

namespace linkscope {
namespace {

// Follows `links` (one per node, in address order) from the first node; returns the nodes in visiting order.
std::vector<std::uint64_t> walk(const std::vector<std::uint64_t>& links, std::uint64_t base) {
  std::vector<std::uint64_t> visited;
  std::uint64_t at = base;
  for (std::size_t step = 0; step < links.size(); ++step) {
    EXPECT_EQ((at - base) % plan::kChaseNodeBytes, 0u);
    visited.push_back((at - base) / plan::kChaseNodeBytes);
    at = links.at((at - base) / plan::kChaseNodeBytes);
  }
  EXPECT_EQ(at, base) << "the chain must close after visiting every node once";
  return visited;
}

TEST(P2pLatency, EitherChainOrderIsOneCycleThroughEveryNode) {
  // Host-side: no GPU needed.
  const std::uint64_t base = 0x10000000;
  const std::uint64_t nodes = 64;
  const auto random = measure::build_chase_links(base, nodes * plan::kChaseNodeBytes, plan::ChaseOrder::kRandom, 3);
  ASSERT_EQ(random.size(), nodes);
  const auto random_order = walk(random, base);
  EXPECT_EQ(std::set<std::uint64_t>(random_order.begin(), random_order.end()).size(), nodes);
  std::size_t in_sequence = 0;
  for (std::size_t i = 1; i < random_order.size(); ++i) in_sequence += random_order[i] == random_order[i - 1] + 1;
  EXPECT_LT(in_sequence, nodes / 4) << "a random chain must not walk the lines in address order";
  // Stride: line after line (nvbandwidth's chain), the last back to the first.
  const auto stride = measure::build_chase_links(base, nodes * plan::kChaseNodeBytes, plan::ChaseOrder::kStride, 3);
  const auto stride_order = walk(stride, base);
  for (std::uint64_t i = 0; i < nodes; ++i) EXPECT_EQ(stride_order[i], i);
}

// The chain as the GPU holds it: one link in the first word of every 128-byte line, zeros elsewhere.
TEST(P2pLatency, ChainIsWrittenOneLinkPerLine) {
  LINKSCOPE_REQUIRE_GPUS(1);
  const std::uint64_t footprint = 64 << 10;
  platform::DeviceBuffer chain(0, footprint);
  const auto links =
      measure::build_chase_links(reinterpret_cast<std::uint64_t>(chain.get()), footprint, plan::ChaseOrder::kRandom, 9);
  platform::Stream stream(0);
  platform::ScopedDevice scope(0);
  measure::write_chase_chain(chain.get(), links, stream.get());
  std::vector<std::uint64_t> words(footprint / 8);
  LINKSCOPE_CUDA_CHECK(cudaMemcpy(words.data(), chain.get(), footprint, cudaMemcpyDeviceToHost));
  for (std::size_t node = 0; node < links.size(); ++node) {
    EXPECT_EQ(words[node * 16], links[node]);
    for (std::size_t w = 1; w < 16; ++w) EXPECT_EQ(words[node * 16 + w], 0u);
  }
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
    if (l.status == model::PointStatus::kNa) continue;
    ASSERT_EQ(l.status, model::PointStatus::kOk) << l.method << ": " << l.reason;
    ASSERT_TRUE(l.latency_ns.has_value());
    EXPECT_GT(l.latency_ns->min, 0.0) << l.method;
    EXPECT_LT(l.latency_ns->max, 100e3) << l.method;
    EXPECT_GE(l.samples, 1u);
  }
  EXPECT_EQ(results.latency[0].method, "sm_pointer_chase");
  EXPECT_EQ(results.latency[1].method, "ce_small_copy");
}

// Every variant of the hidden options runs, and the load instruction matters: over a lap that fits L1, ca loads
// hit L1 and must be far faster than cg loads, which never use L1 (checked on the first GPU's own memory).
TEST(P2pLatency, ChaseVariantsRunAndCaLoadsHitL1WhenTheLapFits) {
  LINKSCOPE_REQUIRE_GPUS(1);
  const int count = platform::cuda_device_count_or_zero();
  plan::P2pRequest request = latency_only(count >= 2 ? "0>0,0>1" : "0>0");
  request.chase_specs = plan::expand_chase_specs({{"random", "stride"}, {"cg", "ca", "plain"}, {64 << 10, 2 << 20}});
  const auto results = measure::run_p2p(request, {});
  ASSERT_EQ(results.latency.size(), request.pairs.size() * (request.chase_specs.size() + 1));
  std::map<std::pair<std::string, int>, double> ns;  // (variant, src) -> median
  for (const auto& l : results.latency) {
    if (l.status == model::PointStatus::kNa) continue;
    ASSERT_EQ(l.status, model::PointStatus::kOk) << l.method << " " << l.chase << ": " << l.reason;
    ASSERT_TRUE(l.latency_ns.has_value());
    EXPECT_GT(l.latency_ns->min, 0.0) << l.chase;
    if (l.method == "sm_pointer_chase") ns[{l.chase, l.src}] = l.latency_ns->median;
    const bool may_hit_l1 = l.chase.find("cg") == std::string::npos && l.bytes < (1 << 20);
    EXPECT_EQ(!l.reason.empty(), may_hit_l1 && l.method == "sm_pointer_chase") << l.chase << ": " << l.reason;
  }
  EXPECT_LT(ns.at({"stride ca 64K", 0}), 0.7 * ns.at({"stride cg 64K", 0})) << "local: ca over 64 KiB should hit L1";
  EXPECT_LT(ns.at({"random ca 64K", 0}), 0.7 * ns.at({"random cg 64K", 0}));
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
  if (a.status == model::PointStatus::kNa) GTEST_SKIP() << a.reason;
  EXPECT_EQ(a.src, 0);
  EXPECT_EQ(a.dst, 1);
  EXPECT_EQ(b.src, 1);
  EXPECT_EQ(b.dst, 0);
  for (const auto* p : {&a, &b}) {
    EXPECT_EQ(p->direction, "bidir");
    EXPECT_EQ(p->status, model::PointStatus::kOk) << p->reason;
    ASSERT_TRUE(p->total_gbps && p->bandwidth_gbps);
    // The total is over the shared window, so it cannot exceed the sum of the two directions by much, and it is
    // at least the larger one (each direction's own window lies inside the shared one).
    EXPECT_GE(p->total_gbps->median * 1.01, std::max(a.bandwidth_gbps->median, b.bandwidth_gbps->median));
    EXPECT_LE(p->total_gbps->median, (a.bandwidth_gbps->median + b.bandwidth_gbps->median) * 1.01);
    // The sum of the directions' own rates (nvbandwidth's total) is never below the shared window's total: in every
    // sample each window lies inside the shared one.
    ASSERT_TRUE(p->sum_gbps);
    EXPECT_GE(p->sum_gbps->median, p->total_gbps->median * (1 - 1e-9));
    EXPECT_GE(p->sum_gbps->min, p->total_gbps->min * (1 - 1e-9));
  }
}

// Both ways of opening and closing the shared window measure the same copies; the flag hand-over must not
// make the window longer than the event waits do (it exists to make it shorter).
TEST(P2pLatency, BidirectionalWindowWithFlagsAndWithEvents) {
  LINKSCOPE_REQUIRE_GPUS(2);
  plan::P2pRequest request;
  request.sizes = {256ull << 20};
  request.pairs = plan::parse_pairs("0>1");
  request.methods = {plan::CopyMethod::kCe, plan::CopyMethod::kSm};
  request.bidirectional = true;
  request.measure_latency = false;
  request.measure_host = false;
  request.sampling.max_time_s = 0.3;
  std::map<std::pair<plan::SpanSync, std::string>, double> total_over_sum;
  for (plan::SpanSync sync : {plan::SpanSync::kFlag, plan::SpanSync::kEvent}) {
    request.span_sync = sync;
    const auto results = measure::run_p2p(request, {});
    ASSERT_EQ(results.points.size(), 4u);
    if (results.points[0].status == model::PointStatus::kNa) GTEST_SKIP() << results.points[0].reason;
    for (const auto& p : results.points) {
      ASSERT_EQ(p.status, model::PointStatus::kOk) << plan::to_string(sync) << " " << p.method << ": " << p.reason;
      EXPECT_EQ(p.wrong, 0u);
      ASSERT_TRUE(p.total_gbps && p.sum_gbps);
      total_over_sum[std::make_pair(sync, p.method)] = p.total_gbps->median / p.sum_gbps->median;
    }
  }
  for (const char* method : {"ce", "sm_read"}) {
    const double flag = total_over_sum[std::make_pair(plan::SpanSync::kFlag, std::string(method))];
    const double event = total_over_sum[std::make_pair(plan::SpanSync::kEvent, std::string(method))];
    EXPECT_GE(flag, event - 0.002) << method;
  }
}

}  // namespace
}  // namespace linkscope
