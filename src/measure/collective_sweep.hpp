#pragma once
#include <functional>
#include <vector>

#include "measure/collective_benchmark.hpp"
#include "model/collectives.hpp"

namespace linkscope::measure {

// What a size that fails in CUDA or NCCL does to the sweep.
enum class SizeErrors {
  kRecordAndContinue,  // one process: the size's point is "error" and the sweep goes on
  kThrow,              // processes in lock step (MPI collectives): DeviceError ends the run everywhere
  kRecordAndStop,      // processes on deadline-bound messages: the point is "error", the sweep ends, what was measured
                       // is returned (a partner that still waits is named by its own NCCL watchdog)
};

struct SweepPlan {
  std::vector<SeriesKey> series;          // every (op, type, redop, root) to run, in order
  std::vector<std::uint64_t> sizes;       // requested bytes
  bool out_of_place = true;
  bool in_place = false;
  int cycles = 1;                         // -N: repeat the whole sweep
  BenchmarkOptions options;
  SizeErrors size_errors = SizeErrors::kRecordAndContinue;
};

// Called after each size of a series with that size's points (out of place first).
using SizeCallback =
    std::function<void(const model::CollectiveSeries& series, const std::vector<model::CollectivePoint>& points)>;

// Runs the plan; `prototype` supplies what is common to all series (ranks, launch, devices, env).
// Stops early when the communicators were aborted (a timeout); what was measured is returned.
std::vector<model::CollectiveSeries> run_sweep(CollectiveBenchmark& bench, const SweepPlan& plan,
                                              const model::CollectiveSeries& prototype, const SizeCallback& on_size);

}  // namespace linkscope::measure
