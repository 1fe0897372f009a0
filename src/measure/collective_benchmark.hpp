#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "core/adaptive_sampler.hpp"
#include "measure/collective_process_group.hpp"
#include "model/collectives.hpp"
#include "plan/collective_run_plan.hpp"

// No CUDA or NCCL header here (the communicators are only named), so that code outside platform/ and measure/ can
// describe a benchmark through measure/collective_run.hpp.
namespace linkscope::measure {

class NcclCommunicators;

using coll::SeriesKey;

struct BenchmarkOptions {
  int warmup_iters = 1;
  std::optional<int> fixed_iters;   // -n: exactly this many timed iterations (ops per graph with -G)
  SamplingPolicy sampling;          // otherwise: adaptive, per point
  int agg_iters = 1;                // -m: operations per iteration, in one NCCL group
  int graph_launches = 0;           // -G: > 0 captures the iterations into a CUDA graph
  coll::RankTimeReduction reduction = coll::RankTimeReduction::kMaximum;
  bool verify = true;
  double timeout_s = 0;             // longest wait for the GPUs; 0 = none
  double batch_target_s = 0.002;    // how long one gated batch of iterations should take
};

// Measures collectives on communicators that stay alive across sizes, with buffers allocated once for the
// largest size. For each point: warm-up, one verified operation (inputs from plan/collective_pattern.hpp,
// checked on the GPU), then timed iterations in gated batches: every rank's stream is held by the launch
// gate until the whole batch is enqueued, and a CUDA event between iterations on every rank's stream gives
// per-iteration times; per iteration the ranks' times are reduced (slowest rank by default).
class CollectiveBenchmark {
 public:
  CollectiveBenchmark(NcclCommunicators& comms, ProcessGroup& group, std::uint64_t buffer_bytes);
  ~CollectiveBenchmark();
  CollectiveBenchmark(const CollectiveBenchmark&) = delete;
  CollectiveBenchmark& operator=(const CollectiveBenchmark&) = delete;

  // One size of one series in one placement. A hang (timeout) or an asynchronous NCCL error is returned as
  // the point's status after the communicators were aborted; CUDA and NCCL call failures throw DeviceError.
  model::CollectivePoint measure(const SeriesKey& key, std::uint64_t requested_bytes, bool in_place,
                                const BenchmarkOptions& options);

  bool aborted() const;
  std::uint64_t buffer_bytes() const { return buffer_bytes_; }

  struct Impl;  // buffers, counters, events and the gate (collective_benchmark.cpp)

 private:
  NcclCommunicators& comms_;
  ProcessGroup& group_;
  std::uint64_t buffer_bytes_;
  std::unique_ptr<Impl> impl_;
};

// Most gated iterations per batch (NCCL's work FIFO and the launch queue must hold a batch while the gate
// keeps the streams from running).
inline constexpr int kMaxBatchIterations = 64;

}  // namespace linkscope::measure
