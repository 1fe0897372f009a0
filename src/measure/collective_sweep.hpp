#pragma once
#include <functional>
#include <vector>

#include "measure/collective_benchmark.hpp"
#include "model/collectives.hpp"

namespace linkscope::measure {

struct SweepPlan {
  std::vector<SeriesKey> series;          // every (op, type, redop, root) to run, in order
  std::vector<std::uint64_t> sizes;       // requested bytes
  bool out_of_place = true;
  bool in_place = false;
  int cycles = 1;                         // -N: repeat the whole sweep
  BenchmarkOptions options;
  // Record a failing size and go on (single process); under MPI a failure is raised so all processes stop.
  bool continue_after_errors = true;
};

// Called after each size of a series with that size's points (out of place first).
using SizeCallback =
    std::function<void(const model::CollectiveSeries& series, const std::vector<model::CollectivePoint>& points)>;

// Runs the plan; `prototype` supplies what is common to all series (ranks, launch, devices, env).
// Stops early when the communicators were aborted (a timeout); what was measured is returned.
std::vector<model::CollectiveSeries> run_sweep(CollectiveBenchmark& bench, const SweepPlan& plan,
                                              const model::CollectiveSeries& prototype, const SizeCallback& on_size);

}  // namespace linkscope::measure
