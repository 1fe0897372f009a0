#pragma once
// The phases of measuring one point of CollectiveBenchmark (warm-up, verification, gated event batches, graph
// capture, and nccl-tests' host-timed loop in collective_host_loop.cpp), shared by the files that implement them.
#include <algorithm>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "measure/collective_benchmark.hpp"
#include "measure/collective_check.hpp"
#include "measure/collective_enqueue.hpp"
#include "measure/collective_wait.hpp"
#include "measure/devapi_session.hpp"
#include "measure/launch_gate.hpp"
#include "measure/nccl_buffer.hpp"
#include "measure/nccl_communicators.hpp"
#include "measure/nccl_error.hpp"
#include "measure/nccl_registration.hpp"
#include "plan/collective_layout.hpp"
#include "plan/nccl_tests_timing.hpp"
#include "platform/cuda_check.hpp"
#include "platform/nccl_library.hpp"

namespace linkscope::measure {

namespace point_run {

using clock = std::chrono::steady_clock;

inline double seconds_since(clock::time_point start) { return std::chrono::duration<double>(clock::now() - start).count(); }

// The reduction operator of every local rank; mulsum ones are PreMulSum handles destroyed at scope end.
class RedOps {
 public:
  RedOps(NcclCommunicators& comms, const SeriesKey& key) : comms_(comms) {
    const auto& nccl = platform::nccl_library();
    for (std::size_t i = 0; i < comms.local_count(); ++i) {
      if (key.redop != coll::RedOp::kMulSum) {
        ops_.push_back(static_cast<ncclRedOp_t>(key.redop));
        continue;
      }
      if (nccl.RedOpCreatePreMulSum == nullptr || nccl.RedOpDestroy == nullptr) {
        throw DeviceError(fmt::format("-o mulsum needs ncclRedOpCreatePreMulSum (NCCL >= 2.11); the loaded NCCL is {}",
                                      nccl.version_string()));
      }
      std::uint64_t scalar = premulsum_scalar_bits(key.type, comms.local(i).rank);
      ncclRedOp_t op{};
      nccl_check(nccl.RedOpCreatePreMulSum(&op, &scalar, static_cast<ncclDataType_t>(key.type), ncclScalarHostImmediate,
                                           comms.comm(i)),
                 "ncclRedOpCreatePreMulSum", comms.comm(i));
      ops_.push_back(op);
      created_ = true;
    }
  }
  ~RedOps() {
    if (!created_ || comms_.aborted()) return;
    for (std::size_t i = 0; i < ops_.size(); ++i) platform::nccl_library().RedOpDestroy(ops_[i], comms_.comm(i));
  }
  RedOps(const RedOps&) = delete;
  RedOps& operator=(const RedOps&) = delete;
  ncclRedOp_t operator[](std::size_t i) const { return ops_[i]; }

 private:
  NcclCommunicators& comms_;
  std::vector<ncclRedOp_t> ops_;
  bool created_ = false;
};

// One captured CUDA graph per local stream.
struct CapturedGraphs {
  std::vector<cudaGraph_t> graphs;
  std::vector<cudaGraphExec_t> execs;
  ~CapturedGraphs() {
    for (auto exec : execs) {
      if (exec != nullptr) cudaGraphExecDestroy(exec);
    }
    for (auto graph : graphs) {
      if (graph != nullptr) cudaGraphDestroy(graph);
    }
  }
};

// Per-iteration times of one batch, reduced over all ranks.
struct Batch {
  std::vector<double> iteration_us;
  double cost_s = 0;        // wall time of the batch (slowest process)
  double enqueue_s = 0;     // host time spent enqueueing
  bool gate_expired = false;
};

}  // namespace point_run

struct CollectiveBenchmark::Impl {
  std::vector<NcclBuffer> send, recv;
  std::vector<std::unique_ptr<WrongCounter>> wrong;
  std::vector<std::vector<std::unique_ptr<platform::Event>>> events;
  LaunchGate gate{10.0};  // only has to outlast the enqueueing of one batch
  std::unique_ptr<NcclRegistrations> registrations;  // -R
  std::vector<ncclWindow_t> send_windows, recv_windows;  // -R 2: one per local rank
  // -D: declared after the registrations so that the device communicators go before the windows.
  std::optional<coll::DeviceApiPlan> device_plan;
  std::unique_ptr<DevapiSession> device_api;
};

namespace point_run {

// Everything about measuring one point; the public measure() strings the phases together.
class PointRun {
 public:
  PointRun(NcclCommunicators& comms, ProcessGroup& group, CollectiveBenchmark::Impl& impl, std::uint64_t buffer_bytes,
           const SeriesKey& key, const coll::CollectiveCounts& counts, bool in_place, const BenchmarkOptions& options)
      : comms_(comms), group_(group), impl_(impl), key_(key), counts_(counts), in_place_(in_place), options_(options),
        redops_(comms, key) {
    const std::uint64_t total = counts.size_bytes();
    rotation_steps_ = total == 0 ? 1 : std::max<std::uint64_t>(1, buffer_bytes / total);
    for (std::size_t i = 0; i < comms.local_count(); ++i) {
      CollectiveCall call;
      call.op = key.op;
      call.type = key.type;
      call.redop = redops_[i];
      call.root = key.root;
      call.rank = comms.local(i).rank;
      call.nranks = comms.nranks();
      call.count = counts.param_count;
      call.peer_bytes = counts_.peer_bytes.get();  // counts_ keeps them alive as long as the calls
      calls_.push_back(call);
    }
  }

  const std::string& failure() const { return failure_; }
  const std::string& failure_status() const { return failure_status_; }

  // Enqueues iteration `iteration` on every local rank: agg_iters operations in one NCCL group. The buffers
  // rotate by the operation's size per iteration (as nccl-tests does) so consecutive iterations do not
  // reuse cached data.
  void enqueue_iteration(std::uint64_t iteration) {
    const auto& nccl = platform::nccl_library();
    const bool group = comms_.local_count() > 1 || options_.agg_iters > 1;
    if (group) nccl_check(nccl.GroupStart(), "ncclGroupStart");
    ncclResult_t result = ncclSuccess;
    for (int a = 0; a < options_.agg_iters && result == ncclSuccess; ++a) result = enqueue_on_ranks(iteration);
    const ncclResult_t end = group ? nccl.GroupEnd() : ncclSuccess;
    check_enqueued(result != ncclSuccess ? result : end);
  }

  // One operation on every local rank (in one NCCL group when there are several), its buffers rotated to slot
  // `rotation`, as nccl-tests' startColl enqueues it.
  void enqueue_operation(std::uint64_t rotation) {
    const auto& nccl = platform::nccl_library();
    const bool group = comms_.local_count() > 1;
    if (group) nccl_check(nccl.GroupStart(), "ncclGroupStart");
    const ncclResult_t result = enqueue_on_ranks(rotation);
    const ncclResult_t end = group ? nccl.GroupEnd() : ncclSuccess;
    check_enqueued(result != ncclSuccess ? result : end);
  }

  // -u: both buffers start this many elements past their allocation (nccl-tests' forced misalignment).
  char* send_base(std::size_t i) const { return impl_.send[i].bytes() + unalign_bytes(); }
  char* recv_base(std::size_t i) const { return impl_.recv[i].bytes() + unalign_bytes(); }

  // nccl-tests' BenchTime: the host timer around -n iterations (-z, -m, -G, -I as nccl-tests 2.19.6 runs them).
  // The reading and, with -I, every iteration's CUDA-event time per local GPU; nothing when the GPUs hung.
  // collective_host_loop.cpp.
  struct HostLoop {
    coll::HostLoopReading reading;
    std::vector<std::vector<double>> per_gpu_iteration_s;  // -I: [local GPU][iteration]
  };
  std::optional<HostLoop> run_host_loop();

  // nccl-tests' sync operation before a timed loop: one operation, the GPUs done, the processes together.
  bool sync_operation() {
    enqueue_operation(0);
    if (!wait("sync operation")) return false;
    group_.barrier();
    return true;
  }

  // False after a timeout or asynchronous NCCL error (the communicators are aborted then).
  bool wait(const char* phase) {
    const WaitOutcome outcome = wait_for_streams(comms_, options_.timeout_s);
    if (outcome.done()) return true;
    failure_status_ = outcome.kind == WaitOutcome::Kind::kTimeout ? "timeout" : "error";
    failure_ = fmt::format("{}: {}", phase, outcome.message);
    return false;
  }

  // At least one untimed operation (as nccl-tests' "sync" op), so NCCL connects the paths this size uses
  // before any gated batch: connection setup must not happen while the gate holds the streams.
  bool warm_up() {
    for (int w = 0; w < std::max(1, options_.warmup_iters); ++w) enqueue_iteration(static_cast<std::uint64_t>(w));
    return wait("warm-up");
  }

  // Checks one operation's output on every rank; the wrong-element count over all ranks, or nothing when
  // this placement is not checked. `ok` turns false when the GPUs hung.
  std::optional<std::int64_t> verify(bool& ok) {
    ok = true;
    if (!options_.verify || (in_place_ && !coll::op_checks_in_place(key_.op))) return std::nullopt;
    const int nranks = comms_.nranks();
    const auto seed = static_cast<std::uint32_t>(counts_.size_bytes() * 2654435761ULL + (in_place_ ? 1 : 0));
    const coll::PatternParams pattern = coll::make_pattern(key_.op, key_.type, key_.redop, nranks, seed);
    const double tolerance = coll::pattern_tolerance(key_.type, nranks);
    const std::size_t element = counts_.element_size;
    for (std::size_t i = 0; i < comms_.local_count(); ++i) {
      platform::ScopedDevice scope(comms_.local(i).device);
      const int rank = comms_.local(i).rank;
      for (const auto& check : coll::output_checks(key_.op, rank, nranks, key_.root, counts_, in_place_)) {
        if (!check.checked) continue;
        // Poison the output first so stale results of an earlier check cannot pass.
        LINKSCOPE_CUDA_CHECK(cudaMemsetAsync(recv_base(i) + check.offset * element, 0xff, check.count * element,
                                             comms_.stream(i)));
      }
      const coll::InputPlacement input = coll::input_placement(key_.op, rank, nranks, key_.root, counts_, in_place_);
      if (input.present) {
        char* base = input.buffer == coll::BufferKind::kSend ? send_base(i) : recv_base(i);
        launch_pattern_fill(base + input.offset * element, input.count, key_.type, pattern, input.value_rank,
                            comms_.stream(i));
      }
      impl_.wrong[i]->reset(comms_.stream(i));
    }
    enqueue_operation(0);  // one operation: -m copies of an in-place reduction would compound
    for (std::size_t i = 0; i < comms_.local_count(); ++i) {
      platform::ScopedDevice scope(comms_.local(i).device);
      for (const auto& check :
           coll::output_checks(key_.op, comms_.local(i).rank, nranks, key_.root, counts_, in_place_)) {
        launch_pattern_verify(recv_base(i) + check.offset * element, check, key_.type, pattern, tolerance,
                              impl_.wrong[i]->device_counter(), comms_.stream(i));
      }
      impl_.wrong[i]->fetch(comms_.stream(i));
    }
    if (!wait("verification")) {
      ok = false;
      return std::nullopt;
    }
    std::vector<long long> wrong{0};
    for (std::size_t i = 0; i < comms_.local_count(); ++i) wrong[0] += static_cast<long long>(impl_.wrong[i]->value());
    group_.allreduce(wrong, ProcessGroup::Op::kSum);
    return wrong[0];
  }

  // Runs `iterations` gated iterations (`skip` leading ones are not reported) and returns their times.
  std::optional<Batch> run_batch(int iterations, int skip, const CapturedGraphs* graphs, int ops_per_launch) {
    const std::size_t n = comms_.local_count();
    auto& gate = impl_.gate;
    gate.reset();
    for (std::size_t i = 0; i < n; ++i) gate.hold(comms_.local(i).device, comms_.stream(i));
    const auto start = clock::now();
    // One timed interval per batch, from after the leading iterations to the end: an event between every pair
    // of back-to-back collectives cost 1-2.5% of busbw at 64 MiB on 2 x H200 (NCCL 2.28.3), while with events
    // only around CUDA graphs linkscope matched nccl-tests. A sample is therefore the mean iteration time of one
    // batch, as a p2p sample is the mean of its copies.
    try {
      if (skip == 0) {
        for (std::size_t i = 0; i < n; ++i) record(i, 0);
      }
      for (int it = 0; it < iterations; ++it) {
        if (graphs != nullptr) {
          for (std::size_t i = 0; i < n; ++i) {
            platform::ScopedDevice scope(comms_.local(i).device);
            LINKSCOPE_CUDA_CHECK(cudaGraphLaunch(graphs->execs[i], comms_.stream(i)));
          }
        } else {
          enqueue_iteration(next_iteration_++);
        }
        if (it + 1 == skip) {
          for (std::size_t i = 0; i < n; ++i) record(i, 0);
        }
      }
      for (std::size_t i = 0; i < n; ++i) record(i, 1);
    } catch (...) {
      gate.release();  // never leave the streams held behind a failed enqueue
      throw;
    }
    Batch batch;
    batch.enqueue_s = seconds_since(start);
    if (group_.size() > 1) group_.barrier();  // start the processes' batches together
    gate.release();
    if (!wait("timed iterations")) return std::nullopt;
    // Reduced over the processes so that all of them retry or stop together.
    std::vector<double> cost{seconds_since(start), gate.expired() ? 1.0 : 0.0};
    group_.allreduce(cost, ProcessGroup::Op::kMax);
    batch.cost_s = cost[0];
    batch.gate_expired = cost[1] > 0;

    const double per_iteration_ops = static_cast<double>(ops_per_launch) * options_.agg_iters;
    const double timed_iterations = static_cast<double>(iterations - skip);
    std::vector<double> values(1, 0.0);
    {
      double combined = options_.reduction == coll::RankTimeReduction::kMinimum ? 1e300 : 0.0;
      for (std::size_t i = 0; i < n; ++i) {
        const double us = 1000.0 * platform::Event::elapsed_ms(*impl_.events[i][0], *impl_.events[i][1]) /
                          (timed_iterations * per_iteration_ops);
        switch (options_.reduction) {
          case coll::RankTimeReduction::kMaximum: combined = std::max(combined, us); break;
          case coll::RankTimeReduction::kMinimum: combined = std::min(combined, us); break;
          case coll::RankTimeReduction::kAverage: combined += us; break;
          case coll::RankTimeReduction::kRank0:
            if (comms_.local(i).rank == 0) combined = us;
            break;
        }
      }
      values[0] = combined;
    }
    const ProcessGroup::Op op = options_.reduction == coll::RankTimeReduction::kMaximum   ? ProcessGroup::Op::kMax
                                : options_.reduction == coll::RankTimeReduction::kMinimum ? ProcessGroup::Op::kMin
                                                                                          : ProcessGroup::Op::kSum;
    group_.allreduce(values, op);
    if (options_.reduction == coll::RankTimeReduction::kAverage) {
      for (double& v : values) v /= comms_.nranks();
    }
    batch.iteration_us = std::move(values);
    return batch;
  }

  // Captures `ops` iterations into one CUDA graph per local stream.
  void capture(int ops, CapturedGraphs& graphs) {
    const std::size_t n = comms_.local_count();
    graphs.graphs.assign(n, nullptr);
    graphs.execs.assign(n, nullptr);
    for (std::size_t i = 0; i < n; ++i) {
      platform::ScopedDevice scope(comms_.local(i).device);
      LINKSCOPE_CUDA_CHECK(cudaStreamBeginCapture(comms_.stream(i), cudaStreamCaptureModeThreadLocal));
    }
    std::string error;
    try {
      for (int it = 0; it < ops; ++it) enqueue_iteration(static_cast<std::uint64_t>(it));
    } catch (const Error& e) {
      error = e.what();
    }
    for (std::size_t i = 0; i < n; ++i) {
      platform::ScopedDevice scope(comms_.local(i).device);
      const cudaError_t status = cudaStreamEndCapture(comms_.stream(i), &graphs.graphs[i]);
      if (error.empty() && status != cudaSuccess) LINKSCOPE_CUDA_CHECK(status);
    }
    if (!error.empty()) throw DeviceError(fmt::format("CUDA graph capture failed: {}", error));
    for (std::size_t i = 0; i < n; ++i) {
      platform::ScopedDevice scope(comms_.local(i).device);
      LINKSCOPE_CUDA_CHECK(cudaGraphInstantiate(&graphs.execs[i], graphs.graphs[i], 0));
    }
  }

 private:
  // The error text is built only on failure: this runs inside the host-timed loop.
  void check_enqueued(ncclResult_t result) const {
    if (result != ncclSuccess) nccl_check(result, fmt::format("nccl {}", coll::op_name(key_.op)));
  }

  std::size_t unalign_bytes() const {
    return static_cast<std::size_t>(options_.unalign_elements) * counts_.element_size;
  }

  ncclResult_t enqueue_on_ranks(std::uint64_t rotation) {
    // nccl-tests 2.19.6 hands its -D kernels the windows at their start on every iteration (its startColl adds no
    // rotation there), so the device-API loop does not rotate either.
    const bool device = impl_.device_api != nullptr;
    const std::uint64_t shift = device ? 0 : counts_.size_bytes() * (rotation % rotation_steps_);
    ncclResult_t result = ncclSuccess;
    for (std::size_t i = 0; i < comms_.local_count() && result == ncclSuccess; ++i) {
      const coll::CallBuffers b = coll::call_buffers(calls_[i].rank, counts_, in_place_);
      const std::size_t element = counts_.element_size;
      const bool input_in_recv = b.send_buffer != coll::BufferKind::kSend;
      const std::size_t send_offset = unalign_bytes() + b.send_offset * element + shift;
      const std::size_t recv_offset = unalign_bytes() + b.recv_offset * element + shift;
      if (device) {
        impl_.device_api->launch({i, input_in_recv, send_offset, recv_offset, calls_[i].count, calls_[i].type});
        continue;
      }
      const void* send = (input_in_recv ? impl_.recv[i].bytes() : impl_.send[i].bytes()) + send_offset;
      void* recv = impl_.recv[i].bytes() + recv_offset;
      result = enqueue_collective(calls_[i], send, recv, comms_.comm(i), comms_.stream(i));
    }
    return result;
  }

  void record(std::size_t local, std::size_t slot) {
    platform::ScopedDevice scope(comms_.local(local).device);
    impl_.events[local][slot]->record(comms_.stream(local));
  }

  NcclCommunicators& comms_;
  ProcessGroup& group_;
  CollectiveBenchmark::Impl& impl_;
  SeriesKey key_;
  coll::CollectiveCounts counts_;
  bool in_place_;
  BenchmarkOptions options_;
  RedOps redops_;
  std::vector<CollectiveCall> calls_;
  std::uint64_t rotation_steps_ = 1;
  std::uint64_t next_iteration_ = 0;
  std::string failure_;
  std::string failure_status_;
};

inline void fail(model::CollectivePoint& point, const std::string& status, const std::string& reason) {
  point.status = status;
  point.reason = reason;
}

// A point timed as nccl-tests times it (the personalities' default): the sync operation, the host-timed loop, then
// the check; `point` arrives with its sizes filled in. collective_host_loop.cpp.
model::CollectivePoint measure_host_timed(PointRun& run, model::CollectivePoint point, ProcessGroup& group, int nranks,
                                          const SeriesKey& key, const coll::CollectiveCounts& counts,
                                          const BenchmarkOptions& options);

}  // namespace point_run

}  // namespace linkscope::measure
