#include "measure/p2p_engine.hpp"

#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/size.hpp"
#include "measure/copy_host.hpp"
#include "measure/copy_session.hpp"
#include "measure/copy_sm_kernel.hpp"
#include "measure/latency_chase.hpp"
#include "measure/latency_probe.hpp"
#include "measure/launch_gate.hpp"
#include "measure/testcase_engine.hpp"
#include "measure/verify_pattern.hpp"
#include "platform/cuda_check.hpp"
#include "platform/cuda_device_info.hpp"
#include "platform/cuda_resources.hpp"
#include "platform/peer_access.hpp"

namespace linkscope::measure {

namespace {

using plan::CopyMethod;
using model::CopyPoint;
using plan::DirectedPair;
using model::PointStatus;

constexpr std::uint32_t kHostSeedSlot = 0xFFFFu;  // derived_seed slot of the pinned host source
constexpr int kCeLatencyCopies = 100;
constexpr std::uint64_t kCeLatencyBytes = 16;

class P2pRun {
 public:
  P2pRun(const plan::P2pRequest& request, const ProgressCallback& progress) : request_(request), progress_(progress) {}

  model::P2pResults run() {
    results_.request = request_;
    const int count = platform::require_cuda_devices();
    plan::check_in_range(request_.pairs, count);
    devices_ = plan::devices_of(request_.pairs);
    for (int d : devices_) results_.devices.push_back(describe_device(d));
    check_memory();
    access_ = platform::enable_peer_access_among(devices_);
    allocate_buffers();
    for (int d : devices_) preload_sample_kernels(d, gate_);
    if (request_.measure_copy) measure_copies();
    if (request_.measure_host) measure_host_copies();
    if (request_.measure_latency) measure_latency();
    model::mark_latency_dominated(results_.points, results_.latency);
    return std::move(results_);
  }

 private:
  struct GpuBuffers {
    platform::DeviceBuffer src;  // holds the pattern of derived_seed(seed, gpu)
    platform::DeviceBuffer dst;  // poisoned and verified by each sample
  };

  void say(const std::string& line) const {
    if (progress_) progress_(line);
  }

  std::uint32_t seed_of_gpu(int gpu) const { return derived_seed(request_.seed, static_cast<std::uint32_t>(gpu)); }

  void check_memory() const {
    const std::uint64_t largest = std::max(request_.measure_copy ? request_.max_bytes() : 0,
                                           request_.measure_host ? request_.resolved_host_bytes() : 0);
    for (const auto& [device, needed] : plan::p2p_bytes_per_device(request_)) {
      const auto memory = platform::device_memory(device);
      const std::string shortfall = plan::memory_shortfall(device, needed, memory.free_bytes, kContextMarginBytes,
                                                           fmt::format("size {}", format_size(largest)));
      if (!shortfall.empty()) throw UsageError(shortfall);
    }
  }

  platform::PeerAccess access(int accessor, int owner) const {
    if (accessor == owner) return {true, {}};
    return access_.at({accessor, owner});
  }

  void allocate_buffers() {
    std::uint64_t largest = request_.measure_copy ? request_.max_bytes() : 0;
    if (request_.measure_host) largest = std::max(largest, request_.resolved_host_bytes());
    largest = std::max<std::uint64_t>(largest, kCeLatencyBytes);
    const std::uint64_t bytes = plan::buffer_bytes_for(largest);
    for (int d : devices_) {
      GpuBuffers buffers{platform::DeviceBuffer(d, bytes), platform::DeviceBuffer(d, bytes)};
      platform::ScopedDevice scope(d);
      launch_fill_pattern(buffers.src.get(), bytes, seed_of_gpu(d), nullptr);
      LINKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
      buffers_.emplace(d, std::move(buffers));
    }
  }

  int initiator_of(const DirectedPair& pair) const {
    return request_.initiator == plan::Initiator::kDestination ? pair.dst : pair.src;
  }

  const SmCopyKernel& kernel_for(int device, const plan::SmKernelShape& shape) {
    const auto key = std::make_pair(device, shape.label());
    auto it = kernels_.find(key);
    if (it == kernels_.end()) it = kernels_.emplace(key, std::make_unique<SmCopyKernel>(device, shape)).first;
    return *it->second;
  }

  SamplingSettings settings() const { return {request_.sampling, request_.warmup_samples, request_.forced_ops}; }

  // ----- copies -----

  void measure_copies() {
    const auto groups = request_.bidirectional ? plan::bidirectional_groups(request_.pairs) : request_.pairs;
    for (CopyMethod method : request_.methods) {
      const std::vector<plan::SmKernelShape> shapes =
          method == CopyMethod::kSm ? request_.sm_shapes : std::vector<plan::SmKernelShape>{plan::SmKernelShape{}};
      for (const auto& shape : shapes) {
        for (const auto& group : groups) {
          for (std::uint64_t bytes : request_.sizes) measure_copy_point(method, shape, group, bytes);
        }
      }
    }
  }

  void measure_copy_point(CopyMethod method, const plan::SmKernelShape& shape, const DirectedPair& group,
                          std::uint64_t bytes) {
    std::vector<DirectedPair> directions = {group};
    const bool bidir = request_.bidirectional && !group.local();
    if (bidir) directions.push_back({group.dst, group.src});

    std::vector<CopyPoint> points;
    std::vector<Transfer> transfers;
    std::string na_reason;    // no peer access: nothing to measure here
    std::string setup_error;  // the SM kernel shape cannot run on the initiator
    for (const auto& dir : directions) {
      CopyPoint p;
      p.src = dir.src;
      p.dst = dir.dst;
      p.bytes = bytes;
      p.direction = bidir ? "bidir" : "uni";
      p.initiator = plan::initiator_name(request_.initiator);
      const int initiator = initiator_of(dir);
      const int peer = initiator == dir.src ? dir.dst : dir.src;
      const auto peer_access = access(initiator, peer);
      Transfer t;
      t.initiator = initiator;
      t.src = buffers_.at(dir.src).src.get();
      t.dst = buffers_.at(dir.dst).dst.get();
      t.src_device = dir.src;
      t.dst_device = dir.dst;
      t.bytes = bytes;
      t.seed = seed_of_gpu(dir.src);
      t.check_device = dir.dst;
      if (method == CopyMethod::kCe) {
        p.method = "ce";
        t.kind = TransferKind::kCopyEngine;
        if (!peer_access.possible) {
          if (request_.allow_staged) {
            p.method = "staged";
            t.kind = TransferKind::kStaged;
          } else {
            na_reason = peer_access.reason + "; --allow-staged measures host-staged copies";
          }
        }
      } else {
        p.method = request_.initiator == plan::Initiator::kDestination ? "sm_read" : "sm_write";
        p.sm_kernel = shape.label();
        t.kind = TransferKind::kSmKernel;
        if (!peer_access.possible) {
          na_reason = peer_access.reason + " (an SM copy needs it)";
        } else {
          try {
            t.kernel = &kernel_for(initiator, shape);
            t.repeat_in_kernel = t.kernel->repeats_in_kernel(bytes);
            p.sm_kernel = t.kernel->label();
            p.sm_repeat = t.repeat_in_kernel ? "kernel" : "launch";
          } catch (const Error& e) {
            setup_error = e.what();
          }
        }
      }
      points.push_back(p);
      transfers.push_back(t);
    }

    if (!na_reason.empty()) {
      for (auto& p : points) p.status = PointStatus::kNa, p.reason = na_reason;
    } else if (!setup_error.empty()) {
      for (auto& p : points) p.status = PointStatus::kError, p.reason = setup_error;
    } else {
      try {
        CopySession session(transfers, gate_, request_.verify, request_.span_sync);
        const PointSamples samples = sample_point(session, settings());
        fill_points(points, samples);
      } catch (const Error& e) {
        for (auto& p : points) p.status = failure_status(e), p.reason = e.what();
      }
    }
    for (const auto& p : points) {
      say(describe(p));
      results_.points.push_back(p);
    }
  }

  static void fill_points(std::vector<CopyPoint>& points, const PointSamples& samples) {
    std::optional<model::Stat3> total, sum;
    if (points.size() > 1) {
      total = model::stat3_of(summarize(samples.aggregate_gbps));
      sum = model::stat3_of(summarize(samples.sum_gbps));
    }
    for (std::size_t i = 0; i < points.size(); ++i) {
      auto& p = points[i];
      const Summary time_us = time_us_summary(samples, i);
      const Summary gbps = bandwidth_summary(samples, i, p.bytes);
      p.ops_per_sample = samples.ops;
      p.samples = gbps.count;
      p.stop_reason = to_string(samples.stop_reason);
      p.time_us = model::stat3_of(time_us);
      p.bandwidth_gbps = model::stat3_of(gbps);
      p.total_gbps = total;
      p.sum_gbps = sum;
      p.cv = gbps.cv;
      p.ci_relative = gbps.median_ci_relative_halfwidth();
      p.wrong = samples.wrong[i];
      if (p.wrong > 0) {
        p.status = PointStatus::kWrong;
        p.reason = wrong_reason(p.wrong);
      }
    }
  }

  static std::string describe(const CopyPoint& p) {
    const std::string what = fmt::format("p2p {} {}>{} {}{}", p.method, p.src, p.dst, format_size(p.bytes),
                                         p.direction == "bidir" ? " bidir" : "");
    if (!p.bandwidth_gbps) return fmt::format("{}: {} ({})", what, model::to_string(p.status), p.reason);
    return fmt::format("{}: {:.1f} GB/s, {:.2f} us ({} samples, cv {:.2f}%){}", what, p.bandwidth_gbps->median,
                       p.time_us->median, p.samples, p.cv * 100, p.wrong > 0 ? fmt::format(", {} WRONG", p.wrong) : "");
  }

  void measure_host_copies() {
    const auto buffers_of = [this](int gpu) {
      return GpuCopyBuffers{buffers_.at(gpu).src.get(), seed_of_gpu(gpu), buffers_.at(gpu).dst.get()};
    };
    results_.host = measure::measure_host_copies(devices_, request_.resolved_host_bytes(),
                                                 derived_seed(request_.seed, kHostSeedSlot), request_.verify,
                                                 buffers_of, gate_, settings(), progress_);
  }

  // ----- latency -----

  void measure_latency() {
    for (const auto& pair : request_.pairs) {
      for (const auto& spec : request_.chase_specs) {
        results_.latency.push_back(pointer_chase(pair, spec));
        say(describe(results_.latency.back()));
      }
      results_.latency.push_back(small_ce_copies(pair));
      say(describe(results_.latency.back()));
    }
  }

  static std::string describe(const model::LatencyPoint& l) {
    const std::string what =
        fmt::format("latency {}{} {}>{}", l.method, l.chase.empty() ? "" : " [" + l.chase + "]", l.src, l.dst);
    if (!l.latency_ns) return fmt::format("{}: {} ({})", what, model::to_string(l.status), l.reason);
    return fmt::format("{}: {:.0f} ns ({} samples)", what, l.latency_ns->median, l.samples);
  }

  // One chain per owner, order and footprint (the load instruction does not change the chain).
  const void* chain_on(int owner, const plan::ChaseSpec& spec) {
    const auto key = std::make_tuple(owner, spec.order, spec.footprint_bytes);
    auto it = chains_.find(key);
    if (it == chains_.end()) {
      const std::uint32_t seed = request_.seed + static_cast<std::uint32_t>(owner);
      it = chains_.emplace(key, make_chase_chain(owner, spec.order, spec.footprint_bytes, seed)).first;
    }
    return it->second.get();
  }

  // A kernel on the destination follows pointers stored in the source's memory: the latency of one load of
  // data moving src -> dst (nvbandwidth's device_to_device_latency_sm with row = dst, column = src).
  model::LatencyPoint pointer_chase(const DirectedPair& pair, const plan::ChaseSpec& spec) {
    model::LatencyPoint l;
    l.src = pair.src;
    l.dst = pair.dst;
    l.method = "sm_pointer_chase";
    l.bytes = spec.footprint_bytes;
    l.chase = spec.label();
    if (!spec.leaves_l1()) {
      l.reason = fmt::format("{} loads over a {} lap can hit the reader's L1: not a link round trip",
                             plan::to_string(spec.load), format_size(spec.footprint_bytes));
    }
    const auto peer_access = access(pair.dst, pair.src);
    if (!peer_access.possible) {
      l.status = PointStatus::kNa;
      l.reason = peer_access.reason;
      return l;
    }
    try {
      fill_latency(l, sample_pointer_chase(pair.dst, chain_on(pair.src, spec), spec, gate_, request_.sampling));
    } catch (const Error& e) {
      l.status = failure_status(e);
      l.reason = e.what();
    }
    return l;
  }

  // 16-byte copies issued by the initiator of the current mode (p2pBandwidthLatencyTest's "GPU latency").
  model::LatencyPoint small_ce_copies(const DirectedPair& pair) {
    model::LatencyPoint l;
    l.src = pair.src;
    l.dst = pair.dst;
    l.method = "ce_small_copy";
    l.bytes = kCeLatencyBytes;
    const int initiator = initiator_of(pair);
    const auto peer_access = access(initiator, initiator == pair.src ? pair.dst : pair.src);
    Transfer t;
    t.kind = TransferKind::kCopyEngine;
    if (!peer_access.possible) {
      if (!request_.allow_staged) {
        l.status = PointStatus::kNa;
        l.reason = peer_access.reason + "; --allow-staged measures host-staged copies";
        return l;
      }
      t.kind = TransferKind::kStaged;
      l.reason = "host-staged (no peer access)";
    }
    t.initiator = initiator;
    t.src = buffers_.at(pair.src).src.get();
    t.dst = buffers_.at(pair.dst).dst.get();
    t.src_device = pair.src;
    t.dst_device = pair.dst;
    t.bytes = kCeLatencyBytes;
    t.seed = seed_of_gpu(pair.src);
    t.check_device = pair.dst;
    try {
      fill_latency(l, sample_small_copies(t, kCeLatencyCopies, gate_, settings()));
    } catch (const Error& e) {
      l.status = failure_status(e);
      l.reason = e.what();
    }
    return l;
  }

  static void fill_latency(model::LatencyPoint& l, const Summary& ns) {
    l.latency_ns = model::stat3_of(ns);
    l.samples = ns.count;
    l.cv = ns.cv;
  }

  const plan::P2pRequest& request_;
  const ProgressCallback& progress_;
  model::P2pResults results_;
  std::vector<int> devices_;
  std::map<std::pair<int, int>, platform::PeerAccess> access_;
  std::map<int, GpuBuffers> buffers_;
  std::map<std::tuple<int, plan::ChaseOrder, std::uint64_t>, platform::DeviceBuffer> chains_;
  std::map<std::pair<int, std::string>, std::unique_ptr<SmCopyKernel>> kernels_;
  LaunchGate gate_;
};

}  // namespace

model::DeviceInfo describe_device(int device) {
  const auto info = platform::cuda_device_info(device);
  return {info.id, info.name, info.pci_bdf, info.uuid, info.sm_count, fmt::format("{}.{}", info.major, info.minor)};
}

model::P2pResults run_p2p(const plan::P2pRequest& request, const ProgressCallback& progress) {
  if (request.testcases.empty()) return P2pRun(request, progress).run();
  model::P2pResults results;
  results.request = request;
  if (results.request.testcase_gpus.empty()) {
    results.request.testcase_gpus = plan::first_devices(platform::require_cuda_devices());
  }
  for (int d : results.request.testcase_gpus) results.devices.push_back(describe_device(d));
  results.testcases = run_testcases(results.request, progress);
  return results;
}

}  // namespace linkscope::measure
