#include "measure/collective_benchmark.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/statistics.hpp"
#include "measure/collective_check.hpp"
#include "measure/collective_enqueue.hpp"
#include "measure/collective_wait.hpp"
#include "measure/launch_gate.hpp"
#include "measure/nccl_buffer.hpp"
#include "measure/nccl_communicators.hpp"
#include "measure/nccl_error.hpp"
#include "plan/collective_layout.hpp"
#include "platform/cuda_check.hpp"
#include "platform/nccl_library.hpp"

namespace linkscope::measure {

namespace {

using clock = std::chrono::steady_clock;

double seconds_since(clock::time_point start) { return std::chrono::duration<double>(clock::now() - start).count(); }

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

}  // namespace

struct CollectiveBenchmark::Impl {
  std::vector<NcclBuffer> send, recv;
  std::vector<std::unique_ptr<WrongCounter>> wrong;
  std::vector<std::vector<std::unique_ptr<platform::Event>>> events;
  LaunchGate gate{10.0};  // only has to outlast the enqueueing of one batch
};

namespace {

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
    const std::uint64_t shift = counts_.size_bytes() * (iteration % rotation_steps_);
    const bool group = comms_.local_count() > 1 || options_.agg_iters > 1;
    if (group) nccl_check(nccl.GroupStart(), "ncclGroupStart");
    ncclResult_t result = ncclSuccess;
    for (int a = 0; a < options_.agg_iters && result == ncclSuccess; ++a) {
      for (std::size_t i = 0; i < comms_.local_count() && result == ncclSuccess; ++i) {
        const coll::CallBuffers b = coll::call_buffers(calls_[i].rank, counts_, in_place_);
        const std::size_t element = counts_.element_size;
        char* base = b.send_buffer == coll::BufferKind::kSend ? impl_.send[i].bytes() : impl_.recv[i].bytes();
        const void* send = base + b.send_offset * element + shift;
        void* recv = impl_.recv[i].bytes() + b.recv_offset * element + shift;
        result = enqueue_collective(calls_[i], send, recv, comms_.comm(i), comms_.stream(i));
      }
    }
    const ncclResult_t end = group ? nccl.GroupEnd() : ncclSuccess;
    nccl_check(result != ncclSuccess ? result : end, fmt::format("nccl {}", coll::op_name(key_.op)));
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
      const coll::OutputCheck check = coll::output_check(key_.op, rank, nranks, key_.root, counts_, in_place_);
      if (check.checked) {
        // Poison the output first so stale results of an earlier check cannot pass.
        LINKSCOPE_CUDA_CHECK(cudaMemsetAsync(impl_.recv[i].bytes() + check.offset * element, 0xff, check.count * element,
                                             comms_.stream(i)));
      }
      const coll::InputPlacement input = coll::input_placement(key_.op, rank, nranks, key_.root, counts_, in_place_);
      if (input.present) {
        char* base = input.buffer == coll::BufferKind::kSend ? impl_.send[i].bytes() : impl_.recv[i].bytes();
        launch_pattern_fill(base + input.offset * element, input.count, key_.type, pattern, input.value_rank,
                            comms_.stream(i));
      }
      impl_.wrong[i]->reset(comms_.stream(i));
    }
    enqueue_iteration(0);
    for (std::size_t i = 0; i < comms_.local_count(); ++i) {
      platform::ScopedDevice scope(comms_.local(i).device);
      const coll::OutputCheck check =
          coll::output_check(key_.op, comms_.local(i).rank, nranks, key_.root, counts_, in_place_);
      launch_pattern_verify(impl_.recv[i].bytes() + check.offset * element, check, key_.type, pattern, tolerance,
                            impl_.wrong[i]->device_counter(), comms_.stream(i));
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

void fail(model::CollectivePoint& point, const std::string& status, const std::string& reason) {
  point.status = status;
  point.reason = reason;
}

}  // namespace

CollectiveBenchmark::CollectiveBenchmark(NcclCommunicators& comms, ProcessGroup& group, std::uint64_t buffer_bytes)
    : comms_(comms), group_(group), buffer_bytes_(buffer_bytes), impl_(std::make_unique<Impl>()) {
  for (std::size_t i = 0; i < comms.local_count(); ++i) {
    const int device = comms.local(i).device;
    impl_->send.emplace_back(device, buffer_bytes);
    impl_->recv.emplace_back(device, buffer_bytes);
    platform::ScopedDevice scope(device);
    // Defined contents (zeros are valid in every type) for the rotated regions the check does not fill.
    LINKSCOPE_CUDA_CHECK(cudaMemsetAsync(impl_->send.back().get(), 0, buffer_bytes, comms.stream(i)));
    LINKSCOPE_CUDA_CHECK(cudaMemsetAsync(impl_->recv.back().get(), 0, buffer_bytes, comms.stream(i)));
    impl_->wrong.push_back(std::make_unique<WrongCounter>(device));
    std::vector<std::unique_ptr<platform::Event>> events;
    // One event per iteration boundary, plus one for a leading (discarded) iteration.
    for (int e = 0; e <= kMaxBatchIterations + 1; ++e) events.push_back(std::make_unique<platform::Event>(device));
    impl_->events.push_back(std::move(events));
  }
  for (std::size_t i = 0; i < comms.local_count(); ++i) LINKSCOPE_CUDA_CHECK(cudaStreamSynchronize(comms.stream(i)));
}

CollectiveBenchmark::~CollectiveBenchmark() {
  // After an abort a kernel may still be stuck on a GPU; freeing its memory would block on it. The process is
  // about to end, so the buffers are deliberately left to the driver.
  if (comms_.aborted()) static_cast<void>(impl_.release());
}

bool CollectiveBenchmark::aborted() const { return comms_.aborted(); }

model::CollectivePoint CollectiveBenchmark::measure(const SeriesKey& key, std::uint64_t requested_bytes, bool in_place,
                                                   const BenchmarkOptions& options) {
  const coll::CollectiveCounts counts =
      coll::collective_counts(key.op, requested_bytes, coll::type_size(key.type), comms_.nranks());
  model::CollectivePoint point;
  point.requested_bytes = requested_bytes;
  point.bytes = counts.size_bytes();
  point.count = counts.param_count;
  point.in_place = in_place;
  if (comms_.aborted()) {
    fail(point, "error", "not measured: the NCCL communicators were aborted earlier in this run");
    return point;
  }
  if (counts.size_bytes() > buffer_bytes_) {
    fail(point, "error", fmt::format("{} bytes do not fit the {}-byte buffers", counts.size_bytes(), buffer_bytes_));
    return point;
  }
  PointRun run(comms_, group_, *impl_, buffer_bytes_, key, counts, in_place, options);
  auto failed = [&] {
    fail(point, run.failure_status(), run.failure());
    return point;
  };
  if (!run.warm_up()) return failed();
  bool ok = true;
  point.wrong = run.verify(ok);
  if (!ok) return failed();

  const bool graph = options.graph_launches > 0;
  const int max_batch = std::max(1, kMaxBatchIterations / std::max(1, options.agg_iters));
  // Probe one gated iteration to size the batches (its time is reduced over all processes, so every process
  // picks the same batch size).
  const auto probe = run.run_batch(1, 0, nullptr, 1);
  if (!probe) return failed();
  const double estimate_us = std::max(probe->iteration_us.front(), 0.5);
  int batch = std::clamp(static_cast<int>(options.batch_target_s * 1e6 / estimate_us), 1, max_batch);
  // Between processes the gates open a few microseconds apart; an extra leading iteration absorbs that.
  const int lead = group_.size() > 1 && estimate_us < 1000 && !graph ? 1 : 0;

  CapturedGraphs graphs;
  int ops_per_launch = 1;
  if (graph) {
    ops_per_launch = options.fixed_iters ? *options.fixed_iters : batch;
    run.capture(ops_per_launch, graphs);
    // A graph of many operations is one sample; batch launches so each gated batch stays near the target.
    batch = std::clamp(static_cast<int>(options.batch_target_s * 1e6 / (estimate_us * ops_per_launch)), 1, max_batch);
    // A fixed count of launches (-G) is that many samples, one per launch, however short the operation.
    if (options.fixed_iters) batch = 1;
  }

  std::vector<double> fixed_values;
  std::size_t timed_iterations = 0;
  int fixed_done = 0;  // timed iterations so far (a fixed count counts iterations; each batch is one sample)
  AdaptiveSampler sampler(options.sampling);
  const int fixed_total = !options.fixed_iters ? 0 : (graph ? options.graph_launches : *options.fixed_iters);
  double enqueue_s = 0;
  std::size_t enqueued_ops = 0;
  int expired = 0;
  while (true) {
    int iterations = batch;
    if (options.fixed_iters) {
      const int remaining = fixed_total - fixed_done;
      if (remaining <= 0) break;
      iterations = std::min(batch, remaining);
    } else if (sampler.done()) {
      break;
    }
    const int with_lead = std::min(iterations + lead, max_batch + lead);
    const auto result = run.run_batch(with_lead, lead, graph ? &graphs : nullptr, ops_per_launch);
    if (!result) return failed();
    if (result->gate_expired) {
      // The gate gave up before the batch was enqueued: its times include host enqueue. Retry smaller.
      if (++expired > 3) {
        fail(point, "error", "the launch gate expired repeatedly while enqueueing (NCCL's work queue full?)");
        return point;
      }
      batch = std::max(1, batch / 4);
      continue;
    }
    enqueue_s += result->enqueue_s;
    enqueued_ops += static_cast<std::size_t>(with_lead) * ops_per_launch * options.agg_iters;
    const double cost = result->cost_s / static_cast<double>(result->iteration_us.size());
    if (options.fixed_iters) fixed_done += iterations;
    timed_iterations += static_cast<std::size_t>(iterations) * ops_per_launch;
    for (double us : result->iteration_us) {
      if (options.fixed_iters) {
        fixed_values.push_back(us);
      } else {
        sampler.add(us, cost);
      }
    }
  }

  const std::vector<double>& values = options.fixed_iters ? fixed_values : sampler.values();
  if (values.empty()) {
    fail(point, "error", "no timed iterations");
    return point;
  }
  const Summary s = summarize(values);
  model::TimeSummary t;
  t.median_us = s.median;
  t.min_us = s.min;
  t.max_us = s.max;
  t.mean_us = s.mean;
  t.cv = s.cv;
  t.ci_relative = s.ci_is_95 ? s.median_ci_relative_halfwidth() : 0.0;
  point.time = t;
  point.samples = values.size();
  point.iterations = timed_iterations;
  point.stop_reason = options.fixed_iters ? "fixed-count" : to_string(sampler.stop_reason());
  if (enqueued_ops > 0) point.cputime_us = enqueue_s * 1e6 / static_cast<double>(enqueued_ops);
  const coll::Bandwidth bw = coll::collective_bandwidth(key.op, counts.param_count, counts.element_size, s.median * 1e-6,
                                                        comms_.nranks());
  point.algbw_gbps = bw.algbw_gbps;
  point.busbw_gbps = bw.busbw_gbps;
  if (point.wrong && *point.wrong > 0) {
    point.status = "wrong";
    point.reason = fmt::format("{} wrong element(s) after one verified operation", *point.wrong);
  }
  return point;
}

}  // namespace linkscope::measure
