#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/adaptive_sampler.hpp"
#include "measure/collective_process_group.hpp"
#include "model/collectives.hpp"
#include "plan/collective_run_plan.hpp"
#include "plan/device_api.hpp"
#include "plan/nccl_tests_timing.hpp"

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
  // nccl-tests' host timer around -n iterations instead of gated event batches (the *_perf personalities).
  coll::TimingClock clock = coll::TimingClock::kEvents;
  coll::BlockingMode blocking = coll::BlockingMode::kOff;  // -z (host timer)
  bool per_iteration_timing = false;  // -I (host timer): CUDA events between the iterations as well
  int per_iteration_skip = 0;         // -K
  int unalign_elements = 0;           // -u: buffers start this many elements in (the buffers are padded for it)
  coll::AlltoallvTraffic alltoallv;   // alltoallv's per-peer sizes
};



// Measures collectives on communicators that stay alive across sizes, with buffers allocated once for the
// largest size. For each point: warm-up, one verified operation (inputs from plan/collective_pattern.hpp,
// checked on the GPU), then timed iterations in gated batches: every rank's stream is held by the launch
// gate until the whole batch is enqueued, and a CUDA event between iterations on every rank's stream gives
// per-iteration times; per iteration the ranks' times are reduced (slowest rank by default).
class CollectiveBenchmark {
 public:
  // `pad_bytes` more per buffer than the largest size needs (-u moves the buffers' start by up to 8 x unalign).
  CollectiveBenchmark(NcclCommunicators& comms, ProcessGroup& group, std::uint64_t buffer_bytes,
                      std::uint64_t pad_bytes = 0);
  ~CollectiveBenchmark();
  CollectiveBenchmark(const CollectiveBenchmark&) = delete;
  CollectiveBenchmark& operator=(const CollectiveBenchmark&) = delete;

  // One size of one series in one placement. A hang (timeout) or an asynchronous NCCL error is returned as
  // the point's status after the communicators were aborted; CUDA and NCCL call failures throw DeviceError.
  model::CollectivePoint measure(const SeriesKey& key, std::uint64_t requested_bytes, bool in_place,
                                const BenchmarkOptions& options);

  // -R: 0 none, 1 ncclCommRegister, 2 ncclCommWindowRegister (symmetric) of both whole buffers on every rank;
  // deregistered with the benchmark. DeviceError when the loaded NCCL lacks the function.
  void register_buffers(int mode);

  // -D: the plan's device-API kernel replaces the NCCL call from here on (after register_buffers(2)). Throws as
  // DevapiSession does (measure/devapi_session.hpp).
  void use_device_api(const coll::DeviceApiPlan& plan);

  // What the series records as its call: the NCCL function, or the device-API kernel with -D.
  std::string call_name(coll::CollectiveOp op) const;

  // nccl-tests' warm-up before a series (host timer): `warmup_iters` out-of-place operations of every size from
  // the smallest to the largest by doubling, then one wait. False when the GPUs hung or NCCL failed.
  bool warm_up_series(const SeriesKey& key, std::uint64_t min_bytes, std::uint64_t max_bytes,
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
