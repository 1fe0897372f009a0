#include "measure/p2p_engine.hpp"

#include <chrono>
#include <map>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/size.hpp"
#include "measure/copy_session.hpp"
#include "measure/copy_sm_kernel.hpp"
#include "measure/latency_chase.hpp"
#include "measure/launch_gate.hpp"
#include "measure/verify_pattern.hpp"
#include "platform/cuda_check.hpp"
#include "platform/cuda_device_info.hpp"
#include "platform/cuda_resources.hpp"
#include "platform/peer_access.hpp"

namespace linkscope::measure {

namespace {

using plan::CopyMethod;
using plan::CopyPoint;
using plan::DirectedPair;
using plan::PointStatus;

constexpr std::uint32_t kHostSeedSlot = 0xFFFFu;  // derived_seed slot of the pinned host source
constexpr int kCeLatencyCopies = 100;
constexpr std::uint64_t kCeLatencyBytes = 16;

Summary summarize_scaled(const std::vector<double>& values, double scale) {
  std::vector<double> scaled;
  scaled.reserve(values.size());
  for (double v : values) scaled.push_back(v * scale);
  return summarize(scaled);
}

Summary summarize_bandwidth(const std::vector<double>& op_seconds, std::uint64_t bytes) {
  std::vector<double> gbps;
  gbps.reserve(op_seconds.size());
  for (double s : op_seconds) gbps.push_back(gigabytes_per_second(bytes, s));
  return summarize(gbps);
}

std::string status_reason(const Error& e) { return e.what(); }

PointStatus status_of(const Error& e) {
  return e.code() == ExitCode::kTimeout ? PointStatus::kTimeout : PointStatus::kError;
}

class P2pRun {
 public:
  P2pRun(const plan::P2pRequest& request, const ProgressCallback& progress) : request_(request), progress_(progress) {}

  plan::P2pResults run() {
    results_.request = request_;
    const int count = platform::require_cuda_devices();
    plan::check_in_range(request_.pairs, count);
    devices_ = plan::devices_of(request_.pairs);
    for (int d : devices_) {
      const auto info = platform::cuda_device_info(d);
      results_.devices.push_back({info.id, info.name, info.pci_bdf, info.uuid, info.sm_count,
                                  fmt::format("{}.{}", info.major, info.minor)});
    }
    check_memory();
    prepare_peer_access();
    allocate_buffers();
    for (int d : devices_) preload_sample_kernels(d, gate_);
    if (request_.measure_copy) measure_copies();
    if (request_.measure_host) measure_host_copies();
    if (request_.measure_latency) measure_latency();
    plan::mark_latency_dominated(results_.points, results_.latency);
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

  void prepare_peer_access() {
    for (int a : devices_) {
      for (int b : devices_) {
        if (a == b) continue;
        auto access = platform::query_peer_access(a, b);
        if (access.possible) {
          try {
            platform::enable_peer_access(a, b);
          } catch (const Error& e) {
            access = {false, fmt::format("no peer access: enabling GPU {} -> GPU {} failed: {}", a, b, e.what())};
          }
        }
        access_[{a, b}] = access;
      }
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
            p.sm_kernel = t.kernel->label();
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
        CopySession session(transfers, gate_, request_.verify);
        const PointSamples samples = sample_point(session, settings());
        fill_points(points, samples);
      } catch (const Error& e) {
        for (auto& p : points) p.status = status_of(e), p.reason = status_reason(e);
      }
    }
    for (const auto& p : points) {
      say(describe(p));
      results_.points.push_back(p);
    }
  }

  static void fill_points(std::vector<CopyPoint>& points, const PointSamples& samples) {
    std::optional<plan::Stat3> total;
    if (points.size() > 1) total = plan::stat3_of(summarize(samples.aggregate_gbps));
    for (std::size_t i = 0; i < points.size(); ++i) {
      auto& p = points[i];
      const Summary time_us = summarize_scaled(samples.op_seconds[i], 1e6);
      const Summary gbps = summarize_bandwidth(samples.op_seconds[i], p.bytes);
      p.ops_per_sample = samples.ops;
      p.samples = gbps.count;
      p.stop_reason = to_string(samples.stop_reason);
      p.time_us = plan::stat3_of(time_us);
      p.bandwidth_gbps = plan::stat3_of(gbps);
      p.total_gbps = total;
      p.cv = gbps.cv;
      p.ci_relative = gbps.median_ci_relative_halfwidth();
      p.wrong = samples.wrong[i];
      if (p.wrong > 0) {
        p.status = PointStatus::kWrong;
        p.reason = fmt::format("{} words of the destination did not match the source", p.wrong);
      }
    }
  }

  static std::string describe(const CopyPoint& p) {
    const std::string what = fmt::format("p2p {} {}>{} {}{}", p.method, p.src, p.dst, format_size(p.bytes),
                                         p.direction == "bidir" ? " bidir" : "");
    if (!p.bandwidth_gbps) return fmt::format("{}: {} ({})", what, plan::to_string(p.status), p.reason);
    return fmt::format("{}: {:.1f} GB/s, {:.2f} us ({} samples, cv {:.2f}%){}", what, p.bandwidth_gbps->median,
                       p.time_us->median, p.samples, p.cv * 100, p.wrong > 0 ? fmt::format(", {} WRONG", p.wrong) : "");
  }

  // ----- host <-> device -----

  void measure_host_copies() {
    const std::uint64_t bytes = request_.resolved_host_bytes();
    std::optional<platform::PinnedHostBuffer> host_src, host_dst;
    try {
      host_src.emplace(plan::buffer_bytes_for(bytes));
      host_dst.emplace(plan::buffer_bytes_for(bytes));
      platform::ScopedDevice scope(devices_.front());
      launch_fill_pattern(device_view(*host_src, devices_.front()), bytes, derived_seed(request_.seed, kHostSeedSlot),
                          nullptr);
      LINKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
    } catch (const Error& e) {
      for (int d : devices_) {
        for (const char* direction : {"h2d", "d2h"}) {
          plan::HostPoint h;
          h.gpu = d;
          h.direction = direction;
          h.bytes = bytes;
          h.status = status_of(e);
          h.reason = fmt::format("pinned host buffers of {}: {}", format_size(bytes), e.what());
          results_.host.push_back(h);
        }
      }
      return;
    }
    for (int d : devices_) {
      for (const bool to_device : {true, false}) {
        plan::HostPoint h;
        h.gpu = d;
        h.direction = to_device ? "h2d" : "d2h";
        h.bytes = bytes;
        Transfer t;
        t.kind = TransferKind::kCopyEngine;
        t.initiator = d;
        t.bytes = bytes;
        t.check_device = d;
        if (to_device) {
          t.src = host_src->get();
          t.dst = buffers_.at(d).dst.get();
          t.dst_device = d;
          t.seed = derived_seed(request_.seed, kHostSeedSlot);
        } else {
          t.src = buffers_.at(d).src.get();
          t.src_device = d;
          t.dst = host_dst->get();
          t.seed = seed_of_gpu(d);
        }
        try {
          if (!to_device) t.check_dst = device_view(*host_dst, d);
          CopySession session({t}, gate_, request_.verify);
          const PointSamples samples = sample_point(session, settings());
          const Summary gbps = summarize_bandwidth(samples.op_seconds[0], bytes);
          h.ops_per_sample = samples.ops;
          h.samples = gbps.count;
          h.time_us = plan::stat3_of(summarize_scaled(samples.op_seconds[0], 1e6));
          h.bandwidth_gbps = plan::stat3_of(gbps);
          h.cv = gbps.cv;
          h.wrong = samples.wrong[0];
          if (h.wrong > 0) {
            h.status = PointStatus::kWrong;
            h.reason = fmt::format("{} words of the destination did not match the source", h.wrong);
          }
          say(fmt::format("host {} GPU {} {}: {:.1f} GB/s ({} samples)", h.direction, d, format_size(bytes),
                          gbps.median, gbps.count));
        } catch (const Error& e) {
          h.status = status_of(e);
          h.reason = e.what();
          say(fmt::format("host {} GPU {}: {}", h.direction, d, h.reason));
        }
        results_.host.push_back(h);
      }
    }
  }

  static void* device_view(const platform::PinnedHostBuffer& buffer, int device) {
    platform::ScopedDevice scope(device);
    void* pointer = nullptr;
    LINKSCOPE_CUDA_CHECK(cudaHostGetDevicePointer(&pointer, buffer.get(), 0));
    return pointer;
  }

  // ----- latency -----

  void measure_latency() {
    for (const auto& pair : request_.pairs) {
      results_.latency.push_back(pointer_chase(pair));
      say(describe(results_.latency.back()));
      results_.latency.push_back(small_ce_copies(pair));
      say(describe(results_.latency.back()));
    }
  }

  static std::string describe(const plan::LatencyPoint& l) {
    const std::string what = fmt::format("latency {} {}>{}", l.method, l.src, l.dst);
    if (!l.latency_ns) return fmt::format("{}: {} ({})", what, plan::to_string(l.status), l.reason);
    return fmt::format("{}: {:.0f} ns ({} samples)", what, l.latency_ns->median, l.samples);
  }

  const void* chain_on(int owner) {
    auto it = chains_.find(owner);
    if (it != chains_.end()) return it->second.get();
    platform::DeviceBuffer chain(owner, kChaseFootprintBytes);
    const auto words = build_chase_chain(reinterpret_cast<std::uint64_t>(chain.get()), kChaseFootprintBytes,
                                         request_.seed + static_cast<std::uint32_t>(owner));
    LINKSCOPE_CUDA_CHECK(cudaMemcpy(chain.get(), words.data(), words.size() * sizeof(std::uint64_t), cudaMemcpyHostToDevice));
    return chains_.emplace(owner, std::move(chain)).first->second.get();
  }

  // A kernel on the destination follows pointers stored in the source's memory: the latency of one load of
  // data moving src -> dst (nvbandwidth's device_to_device_latency_sm with row = dst, column = src).
  plan::LatencyPoint pointer_chase(const DirectedPair& pair) {
    plan::LatencyPoint l;
    l.src = pair.src;
    l.dst = pair.dst;
    l.method = "sm_pointer_chase";
    l.bytes = kChaseFootprintBytes;
    const auto peer_access = access(pair.dst, pair.src);
    if (!peer_access.possible) {
      l.status = PointStatus::kNa;
      l.reason = peer_access.reason;
      return l;
    }
    try {
      const void* chain = chain_on(pair.src);
      const int reader = pair.dst;
      platform::DeviceBuffer sink(reader, sizeof(std::uint64_t));
      platform::Stream stream(reader);
      platform::Event start(reader), stop(reader);
      platform::ScopedDevice scope(reader);
      // One untimed lap brings the chain into the owner's L2 and the translations into the reader's TLBs.
      launch_pointer_chase(chain, kChaseFootprintBytes / kChaseNodeBytes, sink.as<std::uint64_t>(), stream.get());
      stream.synchronize();
      AdaptiveSampler sampler(request_.sampling);
      while (!sampler.done()) {
        const auto began = std::chrono::steady_clock::now();
        gate_.reset();
        gate_.hold(reader, stream.get());
        start.record(stream.get());
        launch_pointer_chase(chain, kChaseStepsPerSample, sink.as<std::uint64_t>(), stream.get());
        stop.record(stream.get());
        gate_.release();
        stream.synchronize();
        if (gate_.expired()) throw TimeoutError("the launch gate's watchdog fired during a pointer chase");
        const double ns = platform::Event::elapsed_ms(start, stop) * 1e6 / static_cast<double>(kChaseStepsPerSample);
        sampler.add(ns, std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
      }
      const Summary s = sampler.summary();
      l.latency_ns = plan::stat3_of(s);
      l.samples = s.count;
      l.cv = s.cv;
    } catch (const Error& e) {
      l.status = status_of(e);
      l.reason = e.what();
    }
    return l;
  }

  // Back-to-back 16-byte copies on one stream: each starts when the previous one has completed, so the time
  // per copy is the latency of a small copy-engine transfer (p2pBandwidthLatencyTest's GPU latency).
  plan::LatencyPoint small_ce_copies(const DirectedPair& pair) {
    plan::LatencyPoint l;
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
      CopySession session({t}, gate_, false);
      SamplingSettings fixed = settings();
      fixed.forced_ops = kCeLatencyCopies;
      const PointSamples samples = sample_point(session, fixed);
      const Summary s = summarize_scaled(samples.op_seconds[0], 1e9);
      l.latency_ns = plan::stat3_of(s);
      l.samples = s.count;
      l.cv = s.cv;
    } catch (const Error& e) {
      l.status = status_of(e);
      l.reason = e.what();
    }
    return l;
  }

  const plan::P2pRequest& request_;
  const ProgressCallback& progress_;
  plan::P2pResults results_;
  std::vector<int> devices_;
  std::map<std::pair<int, int>, platform::PeerAccess> access_;
  std::map<int, GpuBuffers> buffers_;
  std::map<int, platform::DeviceBuffer> chains_;
  std::map<std::pair<int, std::string>, std::unique_ptr<SmCopyKernel>> kernels_;
  LaunchGate gate_;
};

}  // namespace

plan::P2pResults run_p2p(const plan::P2pRequest& request, const ProgressCallback& progress) {
  return P2pRun(request, progress).run();
}

}  // namespace linkscope::measure
