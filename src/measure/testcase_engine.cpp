#include "measure/testcase_engine.hpp"

#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/size.hpp"
#include "measure/copy_session.hpp"
#include "measure/copy_sm_kernel.hpp"
#include "measure/latency_probe.hpp"
#include "measure/launch_gate.hpp"
#include "measure/split_warp_copy.hpp"
#include "measure/verify_pattern.hpp"
#include "plan/nvbandwidth_testcases.hpp"
#include "platform/cuda_check.hpp"
#include "platform/cuda_resources.hpp"
#include "platform/peer_access.hpp"

namespace linkscope::measure {

namespace {

using model::PointStatus;
using plan::CellPlan;
using plan::NvbandwidthTestcase;
using plan::PlannedCopy;

constexpr int kHost = plan::kHostMemory;

// A buffer on a GPU or in pinned host memory.
struct Region {
  int location = kHost;
  std::optional<platform::DeviceBuffer> device;
  std::optional<platform::PinnedHostBuffer> host;
  std::uint32_t seed = 0;  // the pattern a source region holds
  void* get() const { return device ? device->get() : host->get(); }
  // As kernels on `gpu` address it.
  void* view(int gpu) const { return device ? device->get() : host->device_view(gpu); }
};


class TestcaseRun {
 public:
  TestcaseRun(const plan::P2pRequest& request, const ProgressCallback& progress)
      : request_(request), progress_(progress) {}

  std::vector<model::TestcaseResult> run() {
    const int count = platform::require_cuda_devices();
    gpus_ = request_.testcase_gpus.empty() ? plan::first_devices(count) : request_.testcase_gpus;
    plan::check_in_range(gpus_, count);
    access_ = platform::enable_peer_access_among(gpus_);
    for (int d : gpus_) preload_sample_kernels(d, gate_);
    std::vector<model::TestcaseResult> results;
    for (const auto* testcase : plan::select_testcases(request_.testcases)) {
      results.push_back(run_one(*testcase));
      regions_.clear();  // each testcase allocates what it needs; keeps host and device memory bounded
    }
    return results;
  }

 private:
  void say(const std::string& line) const {
    if (progress_) progress_(line);
  }


  // Whether `copy`'s initiator reaches both ends (host memory always; itself always).
  std::string access_problem(const PlannedCopy& copy) const {
    for (int end : {copy.src, copy.dst}) {
      if (end == kHost || end == copy.initiator) continue;
      const auto& access = access_.at({copy.initiator, end});
      if (!access.possible) return access.reason;
    }
    return {};
  }

  model::TestcaseResult run_one(const NvbandwidthTestcase& t) {
    model::TestcaseResult result;
    result.name = t.name;
    result.unit = t.latency() ? "ns" : "GB/s";
    result.bytes = plan::testcase_bytes(t, request_.testcase_bytes);
    result.gpus = gpus_;
    const int n = static_cast<int>(gpus_.size());
    for (const auto& spec : t.matrices) {
      model::TestcaseMatrix m{spec.key, spec.title, t.all_gpus_rows ? n : 1, n, {}};
      m.values.assign(static_cast<std::size_t>(m.rows * m.columns), std::nullopt);
      result.matrices.push_back(std::move(m));
    }
    result.reason = plan::testcase_skip_reason(t, n);
    if (!result.reason.empty()) {
      result.status = PointStatus::kNa;
      say(fmt::format("{}: skipped, {}", t.name, result.reason));
      return result;
    }
    for (const auto& cell : plan::plan_cells(t, gpus_, result.bytes)) {
      result.cells.push_back(t.latency() ? measure_latency_cell(t, cell, result) : measure_copy_cell(t, cell, result));
    }
    for (const auto& c : result.cells) {
      if (c.status == PointStatus::kOk || c.status == PointStatus::kNa) continue;
      if (result.status == PointStatus::kOk || c.status == PointStatus::kTimeout) result.status = c.status;
    }
    return result;
  }

  // ----- copies -----

  const Region& region(int location, std::size_t slot, bool source, std::uint64_t bytes) {
    const auto key = std::make_tuple(location, slot, source, bytes);
    auto it = regions_.find(key);
    if (it != regions_.end()) return *it->second;
    auto r = std::make_unique<Region>();
    r->location = location;
    const std::uint64_t size = plan::buffer_bytes_for(bytes);
    if (location == kHost) {
      r->host.emplace(size);
    } else {
      r->device.emplace(location, size);
    }
    r->seed = derived_seed(request_.seed, static_cast<std::uint32_t>(regions_.size()));
    if (source) {
      const int filler = location == kHost ? gpus_.front() : location;
      platform::ScopedDevice scope(filler);
      launch_fill_pattern(r->view(filler), bytes, r->seed, nullptr);
      LINKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
    }
    return *regions_.emplace(key, std::move(r)).first->second;
  }

  // SM copies pull with the read default shape when the initiator is the destination, push with the write default
  // to another GPU, and use the read default's vector loads and stores towards host memory (the write default's
  // bulk copies are tuned for peer GPU memory).
  const SmCopyKernel& kernel_for(const PlannedCopy& copy) {
    const bool pushes_to_gpu = copy.dst != copy.initiator && copy.dst != kHost;
    const auto shape = plan::default_sm_shape(pushes_to_gpu ? plan::Initiator::kSource : plan::Initiator::kDestination);
    const auto key = std::make_pair(copy.initiator, shape.label());
    auto it = kernels_.find(key);
    if (it == kernels_.end()) it = kernels_.emplace(key, std::make_unique<SmCopyKernel>(copy.initiator, shape)).first;
    return *it->second;
  }

  Transfer transfer_for(const NvbandwidthTestcase& t, const PlannedCopy& copy, std::size_t slot) {
    const Region& src = region(copy.src, slot, true, copy.bytes);
    const Region& dst = region(copy.dst, slot, false, copy.bytes);
    Transfer tr;
    tr.initiator = copy.initiator;
    tr.src_device = copy.src;
    tr.dst_device = copy.dst;
    tr.bytes = copy.bytes;
    tr.seed = src.seed;
    tr.check_device = copy.dst == kHost ? copy.initiator : copy.dst;
    tr.check_dst = dst.view(tr.check_device);
    if (t.method == plan::CopyMethod::kCe) {
      tr.kind = TransferKind::kCopyEngine;
      tr.src = src.get();
      tr.dst = dst.get();
      return tr;
    }
    tr.src = src.view(copy.initiator);
    tr.dst = dst.view(copy.initiator);
    if (copy.split_warp) {
      tr.kind = TransferKind::kSmSplitWarp;
      tr.seed = src.seed;
      return tr;
    }
    tr.kind = TransferKind::kSmKernel;
    tr.kernel = &kernel_for(copy);
    tr.repeat_in_kernel = tr.kernel->repeats_in_kernel(copy.bytes);
    return tr;
  }

  // Counts words of both split-warp buffers that do not hold the pattern (every pass restores it everywhere).
  std::uint64_t split_mismatches(const Transfer& tr) const {
    platform::ScopedDevice scope(tr.initiator);
    platform::DeviceBuffer counter(tr.initiator, sizeof(unsigned long long));
    auto* word = counter.as<unsigned long long>();
    LINKSCOPE_CUDA_CHECK(cudaMemset(word, 0, sizeof *word));
    const std::uint64_t whole = tr.bytes / 16 * 16;
    launch_count_mismatches(tr.src, whole, tr.seed, word, nullptr);
    launch_count_mismatches(tr.dst, whole, tr.seed, word, nullptr);
    unsigned long long wrong = 0;
    LINKSCOPE_CUDA_CHECK(cudaMemcpy(&wrong, word, sizeof wrong, cudaMemcpyDeviceToHost));
    return wrong;
  }

  model::TestcaseCell measure_copy_cell(const NvbandwidthTestcase& t, const CellPlan& cell,
                                        model::TestcaseResult& result) {
    model::TestcaseCell out{cell.row, cell.column};
    std::vector<PlannedCopy> copies;
    for (const auto& copy : cell.copies) {
      const std::string problem = access_problem(copy);
      if (problem.empty()) {
        copies.push_back(copy);
      } else if (t.value() != plan::CellValue::kTotal) {  // a fan leaves out the peers it cannot reach
        out.status = PointStatus::kNa;
        out.reason = problem;
        return out;
      }
    }
    if (copies.empty()) {
      out.status = PointStatus::kNa;
      out.reason = "no peer access to any other GPU";
      return out;
    }
    out.copies = static_cast<int>(copies.size());
    try {
      std::vector<Transfer> transfers;
      for (std::size_t i = 0; i < copies.size(); ++i) transfers.push_back(transfer_for(t, copies[i], i));
      const bool split = copies.front().split_warp;
      if (split) {
        for (const auto& tr : transfers) {
          preload_split_warp_copy(tr.initiator);
          if (!request_.verify) continue;
          platform::ScopedDevice scope(tr.initiator);
          prepare_split_warp_buffers(const_cast<void*>(tr.src), tr.dst, tr.bytes, tr.seed, nullptr);
          LINKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
        }
      }
      CopySession session(transfers, gate_, request_.verify && !split);
      const SamplingSettings settings{request_.sampling, request_.warmup_samples, request_.forced_ops};
      const PointSamples samples = sample_point(session, settings);
      for (std::size_t i = 0; i < transfers.size(); ++i) {
        out.wrong += samples.wrong[i];
        if (split && request_.verify) out.wrong += split_mismatches(transfers[i]);
      }
      out.ops_per_sample = samples.ops;
      fill_values(t, copies, samples, out, result);
      if (out.wrong > 0) {
        out.status = PointStatus::kWrong;
        out.reason = wrong_reason(out.wrong);
      }
    } catch (const Error& e) {
      out.status = failure_status(e);
      out.reason = e.what();
    }
    say(describe(t, out, result));
    return out;
  }

  static std::uint64_t counted_bytes(const PlannedCopy& copy) {
    return copy.split_warp ? split_bytes_per_direction(copy.bytes) : copy.bytes;
  }

  static void fill_values(const NvbandwidthTestcase& t, const std::vector<PlannedCopy>& copies,
                          const PointSamples& samples, model::TestcaseCell& out, model::TestcaseResult& result) {
    Summary reported;
    switch (t.value()) {
      case plan::CellValue::kFirst:
        reported = bandwidth_summary(samples, 0, counted_bytes(copies.front()));
        result.matrices.at(0).at(out.row, out.column) = reported.median;
        break;
      case plan::CellValue::kTotal:
        reported = summarize(samples.aggregate_gbps);
        result.matrices.at(0).at(out.row, out.column) = reported.median;
        break;
      case plan::CellValue::kEach: {
        double sum = 0;
        for (std::size_t i = 0; i < copies.size(); ++i) {
          const Summary each = bandwidth_summary(samples, i, counted_bytes(copies[i]));
          result.matrices.at(i).at(out.row, out.column) = each.median;
          sum += each.median;  // nvbandwidth's Total: the sum of the directions' medians
          if (i == 0) reported = each;
        }
        result.matrices.back().at(out.row, out.column) = sum;
        break;
      }
    }
    out.samples = reported.count;
    out.cv = reported.cv;
  }

  // ----- latency -----

  model::TestcaseCell measure_latency_cell(const NvbandwidthTestcase& t, const CellPlan& cell,
                                           model::TestcaseResult& result) {
    model::TestcaseCell out{cell.row, cell.column};
    const PlannedCopy& chase = cell.copies.front();  // src: the memory's owner, dst: the reading GPU
    out.copies = 1;
    const std::string problem = access_problem(chase);
    if (!problem.empty()) {
      out.status = PointStatus::kNa;
      out.reason = problem;
      return out;
    }
    try {
      const auto& spec = plan::kNvbandwidthChase;
      const std::uint32_t seed = request_.seed + static_cast<std::uint32_t>(chase.src + 1);
      Summary ns;
      if (chase.src == kHost) {
        const auto chain = make_host_chase_chain(chase.dst, spec.order, spec.footprint_bytes, seed);
        ns = sample_pointer_chase(chase.dst, chain.device_view(chase.dst), spec, gate_, request_.sampling);
      } else {
        const auto chain = make_chase_chain(chase.src, spec.order, spec.footprint_bytes, seed);
        ns = sample_pointer_chase(chase.dst, chain.get(), spec, gate_, request_.sampling);
      }
      // nvbandwidth's figure is the mean over one chase per SM; the samples visit the SMs in turn.
      result.matrices.at(0).at(out.row, out.column) = ns.mean;
      out.samples = ns.count;
      out.cv = ns.cv;
    } catch (const Error& e) {
      out.status = failure_status(e);
      out.reason = e.what();
    }
    say(describe(t, out, result));
    return out;
  }

  static std::string describe(const NvbandwidthTestcase& t, const model::TestcaseCell& c,
                              const model::TestcaseResult& result) {
    const std::string what = fmt::format("{} [{},{}]", t.name, c.row, c.column);
    const auto& value = result.matrices.back().at(c.row, c.column);
    if (!value) return fmt::format("{}: {} ({})", what, model::to_string(c.status), c.reason);
    return fmt::format("{}: {:.2f} {} ({} samples, cv {:.2f}%){}", what, *value, result.unit, c.samples, c.cv * 100,
                       c.wrong > 0 ? fmt::format(", {} WRONG", c.wrong) : "");
  }

  const plan::P2pRequest& request_;
  const ProgressCallback& progress_;
  std::vector<int> gpus_;
  std::map<std::pair<int, int>, platform::PeerAccess> access_;
  std::map<std::tuple<int, std::size_t, bool, std::uint64_t>, std::unique_ptr<Region>> regions_;
  std::map<std::pair<int, std::string>, std::unique_ptr<SmCopyKernel>> kernels_;
  LaunchGate gate_;
};

}  // namespace

std::vector<model::TestcaseResult> run_testcases(const plan::P2pRequest& request, const ProgressCallback& progress) {
  return TestcaseRun(request, progress).run();
}

}  // namespace linkscope::measure
