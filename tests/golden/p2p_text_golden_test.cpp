#include "report/p2p_text.hpp"

#include <gtest/gtest.h>

#include "core/size.hpp"
#include "p2p_golden_support.hpp"

namespace linkscope {
namespace {

using model::CopyPoint;

// The golden text, and the same text from the saved run of a `linkscope p2p` that measured `results`.
void expect_p2p_text(const std::string& golden, const model::P2pResults& results) {
  model::Run run = model::make_run("p2p", {"linkscope", "p2p"});
  run.measurements.p2p = results;
  test::expect_p2p_golden_and_report(golden, run, report::render_p2p_text(results));
}
using model::PointStatus;

// A point with a fixed time per copy; bandwidth follows from it (as the engine computes it).
CopyPoint copy(int src, int dst, const std::string& method, std::uint64_t bytes, double time_us, double spread = 0.002) {
  CopyPoint p;
  p.src = src;
  p.dst = dst;
  p.method = method;
  p.initiator = "dst";
  p.bytes = bytes;
  p.sm_kernel = method == "ce" ? "" : "vec_nc t1024 c2 u4";
  p.sm_repeat = method == "ce" ? "" : (bytes >= plan::kRepeatInKernelMinBytes ? "kernel" : "launch");
  p.ops_per_sample = 1;
  p.samples = 8;
  p.stop_reason = "precision-reached";
  p.time_us = model::Stat3{time_us, time_us * (1 - spread), time_us * (1 + 2 * spread)};
  const double gbps = gigabytes_per_second(bytes, time_us * 1e-6);
  p.bandwidth_gbps = model::Stat3{gbps, gbps / (1 + 2 * spread), gbps / (1 - spread)};
  p.cv = spread;
  p.ci_relative = spread;
  return p;
}

model::P2pResults two_h200() {
  model::P2pResults r;
  r.request.sizes = {1024, 1 << 20, 512ull << 20};
  r.request.pairs = plan::parse_pairs("0>1,1>0");
  r.devices = {{0, "NVIDIA H200", "00000000:00:06.0", "GPU-00000000-0000-0000-0000-000000000006", 132, "9.0"},
               {1, "NVIDIA H200", "00000000:00:07.0", "GPU-00000000-0000-0000-0000-000000000007", 132, "9.0"}};
  for (const auto& [src, dst] : {std::pair{0, 1}, std::pair{1, 0}}) {
    r.points.push_back(copy(src, dst, "ce", 1024, 2.5, 0.02));
    r.points.push_back(copy(src, dst, "ce", 1 << 20, 4.9, 0.01));
    r.points.push_back(copy(src, dst, "ce", 512ull << 20, src == 0 ? 1363.3 : 1366.0));
  }
  for (const auto& [src, dst] : {std::pair{0, 1}, std::pair{1, 0}}) {
    r.points.push_back(copy(src, dst, "sm_read", 1024, 3.1, 0.02));
    r.points.push_back(copy(src, dst, "sm_read", 1 << 20, 5.6, 0.01));
    r.points.push_back(copy(src, dst, "sm_read", 512ull << 20, 1340.0));
  }
  for (const auto& [src, dst] : {std::pair{0, 1}, std::pair{1, 0}}) {
    model::LatencyPoint chase;
    chase.src = src;
    chase.dst = dst;
    chase.method = "sm_pointer_chase";
    chase.bytes = 2 << 20;
    chase.chase = "random cg 2M";
    chase.latency_ns = model::Stat3{812.4, 810.9, 815.0};
    chase.samples = 6;
    r.latency.push_back(chase);
    model::LatencyPoint ce = chase;
    ce.method = "ce_small_copy";
    ce.bytes = 16;
    ce.chase = "";
    ce.latency_ns = model::Stat3{2391.0, 2380.2, 2410.7};
    r.latency.push_back(ce);
  }
  for (int gpu : {0, 1}) {
    for (const char* direction : {"h2d", "d2h"}) {
      model::HostPoint h;
      h.gpu = gpu;
      h.direction = direction;
      h.bytes = 256 << 20;
      h.samples = 6;
      h.time_us = model::Stat3{4854.0, 4850.0, 4861.0};
      h.bandwidth_gbps = model::Stat3{55.3, 55.2, 55.35};
      r.host.push_back(h);
    }
  }
  model::mark_latency_dominated(r.points, r.latency);
  return r;
}

TEST(P2pTextGolden, TwoGpusBothMethods) {
  expect_p2p_text("two_gpus.txt", two_h200());
}

TEST(P2pTextGolden, NoPeerAccessWrongDataAndBidirectional) {
  model::P2pResults r;
  r.request.sizes = {64 << 20};
  r.request.pairs = plan::parse_pairs("0>1,0>2");
  r.request.bidirectional = true;
  r.request.methods = {plan::CopyMethod::kCe};
  r.devices = {{0, "NVIDIA A100-SXM4-80GB", "00000000:07:00.0", "GPU-a", 108, "8.0"},
               {1, "NVIDIA A100-SXM4-80GB", "00000000:0F:00.0", "GPU-b", 108, "8.0"},
               {2, "NVIDIA A100-SXM4-80GB", "00000000:47:00.0", "GPU-c", 108, "8.0"}};
  CopyPoint a = copy(0, 1, "ce", 64 << 20, 290.0);
  CopyPoint b = copy(1, 0, "ce", 64 << 20, 301.0);
  a.direction = b.direction = "bidir";
  a.total_gbps = b.total_gbps = model::Stat3{453.1, 450.0, 455.2};
  a.sum_gbps = b.sum_gbps = model::Stat3{454.3, 451.0, 456.0};
  b.status = PointStatus::kWrong;
  b.wrong = 4096;
  b.reason = "4096 words of the destination did not match the source";
  r.points = {a, b};
  for (const auto& [src, dst] : {std::pair{0, 2}, std::pair{2, 0}}) {
    CopyPoint na;
    na.src = src;
    na.dst = dst;
    na.method = "ce";
    na.initiator = "dst";
    na.direction = "bidir";
    na.bytes = 64 << 20;
    na.status = PointStatus::kNa;
    na.reason = "no peer access: GPU 2 cannot map GPU 0's memory (cudaDeviceCanAccessPeer = 0); --allow-staged "
                "measures host-staged copies";
    r.points.push_back(na);
  }
  r.request.measure_latency = false;
  r.request.measure_host = false;
  model::mark_latency_dominated(r.points, r.latency);
  expect_p2p_text("na_wrong_bidir.txt", r);
}

TEST(P2pTextGolden, PointerChaseVariantsGetATableOfTheirOwn) {
  model::P2pResults r = two_h200();
  r.points.clear();
  r.host.clear();
  r.request.measure_copy = r.request.measure_host = false;
  const double medians[3] = {853.0, 829.5, 40.2};  // illustrative, not measurements
  const char* chases[3] = {"random cg 2M", "stride plain 2M", "stride ca 64K"};
  std::vector<model::LatencyPoint> latency;
  for (const auto& l : r.latency) {
    if (l.method != "sm_pointer_chase") {
      latency.push_back(l);
      continue;
    }
    for (int v = 0; v < 3; ++v) {
      model::LatencyPoint variant = l;
      variant.chase = chases[v];
      variant.bytes = v == 2 ? 64 << 10 : 2 << 20;
      variant.latency_ns = model::Stat3{medians[v] + l.src, medians[v] - 1 + l.src, medians[v] + 2 + l.src};
      if (v == 2) variant.reason = "ca loads over a 64K lap can hit the reader's L1: not a link round trip";
      latency.push_back(variant);
    }
  }
  auto& failed = latency[latency.size() - 2];  // 1>0 stride ca 64K (the last entry is 1>0's ce_small_copy)
  failed.status = PointStatus::kError;
  failed.latency_ns.reset();
  failed.reason = "an illustrative failure";
  r.latency = latency;
  expect_p2p_text("chase_variants.txt", r);
}

TEST(P2pTextGolden, TuningRunTablesShapesByPair) {
  model::P2pResults r;
  r.request.sizes = {512ull << 20};
  r.request.pairs = plan::parse_pairs("0>1,1>0");
  r.request.methods = {plan::CopyMethod::kSm};
  r.devices = two_h200().devices;
  const double times[3] = {1500.0, 1450.0, 1400.0};  // illustrative, not measurements
  const char* shapes[3] = {"vec t512 c1 u12", "vec_nc256 t512 c2 u8", "bulk 16Kx4 c2"};
  for (int s = 0; s < 3; ++s) {
    for (const auto& [src, dst] : {std::pair{0, 1}, std::pair{1, 0}}) {
      CopyPoint p = copy(src, dst, "sm_read", 512ull << 20, times[s] + src);
      p.sm_kernel = shapes[s];
      r.points.push_back(p);
    }
  }
  CopyPoint failed;
  failed.src = 0;
  failed.dst = 1;
  failed.method = "sm_read";
  failed.bytes = 512ull << 20;
  failed.sm_kernel = "vec t1024 c2 u16";
  failed.status = PointStatus::kError;
  failed.reason = "SM kernel 'vec t1024 c2 u16' cannot run on GPU 1: a CTA of 1024 threads needs more registers";
  r.points.push_back(failed);
  expect_p2p_text("tuning.txt", r);
}

}  // namespace
}  // namespace linkscope
