#include "measure/pattern_engine.hpp"

#include <map>
#include <memory>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/size.hpp"
#include "measure/copy_session.hpp"
#include "measure/copy_sm_kernel.hpp"
#include "measure/verify_pattern.hpp"
#include "platform/cuda_check.hpp"
#include "platform/cuda_device_info.hpp"
#include "platform/peer_access.hpp"

namespace linkscope::measure {

namespace {

using model::PointStatus;

constexpr std::uint32_t kEdgeSeedBase = 1000;  // derived_seed slots of pattern edges (GPU slots are 0..)

std::string method_name(const PatternRequest& request) {
  if (request.method == plan::CopyMethod::kCe) return "ce";
  return request.initiator == plan::Initiator::kDestination ? "sm_read" : "sm_write";
}

struct EdgeBuffers {
  platform::DeviceBuffer src;
  platform::DeviceBuffer dst;
};

class PatternRunner {
 public:
  PatternRunner(const PatternRequest& request, const ProgressCallback& progress) : request_(request), progress_(progress) {}

  std::vector<model::PatternResult> run() {
    const int count = platform::require_cuda_devices();
    for (const auto& p : request_.plans) {
      if (p.runnable) plan::check_in_range(p.spec.edges, count, p.name == "edges" ? "--edges" : "pattern " + p.name);
    }
    for (const auto& [device, needed] : pattern_bytes_per_device(request_)) {
      const auto memory = platform::device_memory(device);
      const std::string shortfall = plan::memory_shortfall(device, needed, memory.free_bytes, kContextMarginBytes,
                                                           fmt::format("patterns of {} per edge", format_size(request_.bytes)));
      if (!shortfall.empty()) throw UsageError(shortfall);
    }
    std::vector<plan::DirectedPair> all_edges;
    for (const auto& p : request_.plans) {
      if (p.runnable) all_edges.insert(all_edges.end(), p.spec.edges.begin(), p.spec.edges.end());
    }
    for (int d : plan::devices_of(all_edges)) preload_sample_kernels(d, gate_);
    std::vector<model::PatternResult> results;
    for (const auto& p : request_.plans) {
      results.push_back(p.runnable ? run_pattern(p.spec) : skipped(p));
      say(describe(results.back()));
    }
    return results;
  }

 private:
  void say(const std::string& line) const {
    if (progress_) progress_(line);
  }

  model::PatternResult blank(const std::string& name) const {
    model::PatternResult r;
    r.name = name;
    r.cpu_node = request_.cpu_node;
    r.bytes = request_.bytes;
    r.method = method_name(request_);
    return r;
  }

  model::PatternResult skipped(const plan::PatternPlan& p) const {
    model::PatternResult r = blank(p.name);
    r.status = PointStatus::kNa;
    r.reason = p.skip_reason;
    return r;
  }

  int initiator_of(const plan::DirectedPair& edge) const {
    return request_.initiator == plan::Initiator::kDestination ? edge.dst : edge.src;
  }

  // Peer access from the initiator of every edge, enabled on first use; the reason of the first edge without.
  std::string missing_access(const std::vector<plan::DirectedPair>& edges) {
    for (const auto& edge : edges) {
      const int initiator = initiator_of(edge);
      const int peer = initiator == edge.src ? edge.dst : edge.src;
      auto access = platform::query_peer_access(initiator, peer);
      if (access.possible) {
        try {
          platform::enable_peer_access(initiator, peer);
        } catch (const Error& e) {
          access = {false, e.what()};
        }
      }
      if (!access.possible) return fmt::format("edge {}: {}", plan::to_string(edge), access.reason);
    }
    return {};
  }

  Transfer transfer_for(const plan::DirectedPair& edge, std::size_t index, const EdgeBuffers& buffers) {
    Transfer t;
    t.initiator = initiator_of(edge);
    t.src = buffers.src.get();
    t.dst = buffers.dst.get();
    t.src_device = edge.src;
    t.dst_device = edge.dst;
    t.bytes = request_.bytes;
    t.seed = derived_seed(request_.seed, kEdgeSeedBase + static_cast<std::uint32_t>(index));
    t.check_device = edge.dst;
    if (request_.method == plan::CopyMethod::kCe) {
      t.kind = TransferKind::kCopyEngine;
    } else {
      t.kind = TransferKind::kSmKernel;
      const auto key = t.initiator;
      auto it = kernels_.find(key);
      if (it == kernels_.end()) it = kernels_.emplace(key, std::make_unique<SmCopyKernel>(key, request_.sm_shape)).first;
      t.kernel = it->second.get();
      t.repeat_in_kernel = t.kernel->repeats_in_kernel(t.bytes);
    }
    return t;
  }

  SamplingSettings settings() const { return {request_.sampling, request_.warmup_samples, request_.forced_ops}; }

  model::PatternResult run_pattern(const plan::PatternSpec& spec) {
    model::PatternResult r = blank(spec.name);
    for (const auto& edge : spec.edges) {
      model::EdgeResult e;
      e.src = edge.src;
      e.dst = edge.dst;
      r.edges.push_back(e);
    }
    const std::string no_access = missing_access(spec.edges);
    if (!no_access.empty()) {
      r.status = PointStatus::kNa;
      r.reason = no_access;
      return r;
    }
    try {
      std::vector<EdgeBuffers> buffers;
      std::vector<Transfer> transfers;
      const std::uint64_t allocation = plan::buffer_bytes_for(request_.bytes);
      for (std::size_t i = 0; i < spec.edges.size(); ++i) {
        const auto& edge = spec.edges[i];
        buffers.push_back({platform::DeviceBuffer(edge.src, allocation), platform::DeviceBuffer(edge.dst, allocation)});
      }
      for (std::size_t i = 0; i < spec.edges.size(); ++i) {
        transfers.push_back(transfer_for(spec.edges[i], i, buffers[i]));
        platform::ScopedDevice scope(spec.edges[i].src);
        launch_fill_pattern(buffers[i].src.get(), request_.bytes, transfers.back().seed, nullptr);
        LINKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
      }
      CopySession session(transfers, gate_, request_.verify);
      const PointSamples samples = sample_point(session, settings());
      const Summary aggregate = summarize(samples.aggregate_gbps);
      r.aggregate_gbps = model::stat3_of(aggregate);
      r.cv = aggregate.cv;
      r.samples = aggregate.count;
      r.ops_per_sample = samples.ops;
      r.stop_reason = to_string(samples.stop_reason);
      for (std::size_t i = 0; i < r.edges.size(); ++i) {
        r.edges[i].bandwidth_gbps = model::stat3_of(bandwidth_summary(samples, i, request_.bytes));
        r.edges[i].time_us = model::stat3_of(time_us_summary(samples, i));
        r.wrong += samples.wrong[i];
      }
      if (r.wrong > 0) {
        r.status = PointStatus::kWrong;
        r.reason = fmt::format("{} words of the destinations did not match their sources", r.wrong);
      }
      for (std::size_t i = 0; i < r.edges.size(); ++i) fill_alone(r.edges[i], transfers[i], r.wrong);
      model::compute_scaling(r);
      if (r.wrong > 0) r.status = PointStatus::kWrong;
    } catch (const Error& e) {
      r.status = failure_status(e);
      r.reason = e.what();
    }
    return r;
  }

  // The edge by itself, measured once per (src, dst) in this run and reused by later patterns.
  void fill_alone(model::EdgeResult& edge, const Transfer& transfer, std::uint64_t& wrong) {
    const auto key = std::make_pair(edge.src, edge.dst);
    auto it = alone_.find(key);
    if (it == alone_.end()) {
      Alone alone;
      try {
        CopySession session({transfer}, gate_, request_.verify);
        const PointSamples samples = sample_point(session, settings());
        alone.gbps = bandwidth_summary(samples, 0, request_.bytes).median;
        wrong += samples.wrong[0];
        say(fmt::format("patterns: edge {}>{} alone: {:.1f} GB/s", edge.src, edge.dst, *alone.gbps));
      } catch (const Error& e) {
        alone.reason = e.what();
      }
      it = alone_.emplace(key, alone).first;
    }
    edge.alone_gbps = it->second.gbps;
    edge.alone_reason = it->second.reason;
  }

  static std::string describe(const model::PatternResult& r) {
    if (!r.aggregate_gbps) return fmt::format("patterns {}: {} ({})", r.name, model::to_string(r.status), r.reason);
    return fmt::format("patterns {}: {:.1f} GB/s aggregate over {} edges{}", r.name, r.aggregate_gbps->median,
                       r.edges.size(), r.scaling ? fmt::format(", scaling {:.3f}", *r.scaling) : "");
  }

  struct Alone {
    std::optional<double> gbps;
    std::string reason;
  };

  const PatternRequest& request_;
  const ProgressCallback& progress_;
  LaunchGate gate_;
  std::map<int, std::unique_ptr<SmCopyKernel>> kernels_;
  std::map<std::pair<int, int>, Alone> alone_;
};

}  // namespace

nlohmann::json to_json(const PatternRequest& request) {
  return {{"bytes", request.bytes},
          {"method", method_name(request)},
          {"sm_kernel", request.method == plan::CopyMethod::kSm ? nlohmann::json(request.sm_shape.label()) : nlohmann::json(nullptr)},
          {"verify", request.verify},
          {"target_ci", request.sampling.target_ci},
          {"max_time_s", request.sampling.max_time_s},
          {"warmup_samples", request.warmup_samples},
          {"seed", request.seed}};
}

std::map<int, std::uint64_t> pattern_bytes_per_device(const PatternRequest& request) {
  const std::uint64_t allocation = plan::buffer_bytes_for(request.bytes);
  std::map<int, std::uint64_t> largest;
  for (const auto& p : request.plans) {
    if (!p.runnable) continue;
    std::map<int, std::uint64_t> needed;
    for (const auto& edge : p.spec.edges) {
      needed[edge.src] += allocation;
      needed[edge.dst] += allocation;
    }
    for (const auto& [device, bytes] : needed) largest[device] = std::max(largest[device], bytes);
  }
  return largest;
}

std::vector<model::PatternResult> run_patterns(const PatternRequest& request, const ProgressCallback& progress) {
  return PatternRunner(request, progress).run();
}

}  // namespace linkscope::measure
