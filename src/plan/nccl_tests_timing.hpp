#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "plan/collective_spec.hpp"

// nccl-tests 2.19.6's timing rules, as host arithmetic: what its `time` column is (a host timer around the
// iteration loop, divided by the operations in it), what -z changes, how ranks' times become one (-a), and the
// per-iteration summary of -I (i_min, i_max, i_p99, i_cv%). The GPU side is measure/collective_benchmark.cpp.
namespace linkscope::coll {

// -z: 0 back to back; 1 wait for the GPUs and a barrier after every operation; 2 wait without the barrier;
// 3 wait and barrier after every iteration (-n), the barrier's time excluded.
enum class BlockingMode { kOff = 0, kWaitAndBarrier = 1, kWait = 2, kPerIterationExcludingBarrier = 3 };

// How the personality's `time` column is taken: nccl-tests' host timer (default) or linkscope's gated CUDA-event
// statistics (--linkscope-stats, and always for `linkscope coll`).
enum class TimingClock { kEvents, kHostLoop };

// The host timer's reading for one size and placement, and what it covered.
struct HostLoopReading {
  double loop_seconds = 0;     // timer from the first enqueue (or the first graph launch) to the GPUs being done
  double enqueue_seconds = 0;  // the same timer when the last operation was enqueued (-C), before waiting
  int iters = 1;               // -n
  int agg_iters = 1;           // -m
  int graph_launches = 0;      // -G: the loop of `iters` was captured once and launched this many times
};

// Seconds per operation for the `time` column: loop / (iters x agg), and / launches with graphs.
double seconds_per_operation(const HostLoopReading& reading);
// Seconds per operation for -C's `cputime` column: enqueue / (iters x agg) (graphs: not divided by launches,
// as nccl-tests divides it).
double cpu_seconds_per_operation(const HostLoopReading& reading);

// How events are placed for -I: shared boundaries (iters + 1 events) or, with -z 3, a start/stop pair per iteration
// so that the barrier between iterations is excluded (2 x iters).
int per_iteration_event_count(int iters, BlockingMode blocking);
int iteration_start_event(int iteration, BlockingMode blocking);
int iteration_stop_event(int iteration, BlockingMode blocking);

// -N: which series the sweep's `step`-th pass runs (0-based), or nothing once the sweep is done. The host timer
// (nccl-tests) repeats each series `cycles` times before the next; linkscope's event statistics repeat the whole
// list. `cycles` 0 never ends (nccl-tests' -N 0: until a signal ends the process): the host timer then repeats the
// first series, the events the whole list.
std::optional<std::size_t> sweep_series_at(std::size_t step, std::size_t series_count, int cycles, TimingClock clock);

// One value from every rank's (or process's) value, as -a chooses: rank 0's, the mean, the minimum or the maximum.
double reduce_rank_values(const std::vector<double>& values, RankTimeReduction reduction);

// -I's summary of per-iteration times (seconds), as nccl-tests computes it: p50 is the upper median, p95/p99 the
// nearest-rank percentiles, stdev the population deviation.
struct IterationStats {
  double min = 0, max = 0, avg = 0, p50 = 0, p95 = 0, p99 = 0, stdev = 0;
  double cv_percent() const { return avg > 0 ? stdev / avg * 100.0 : 0.0; }
};
// Throws UsageError when no iteration is left after `skip` (-K >= -n).
IterationStats iteration_stats(const std::vector<double>& seconds, int skip);

// The slowest row in each iteration (`rows[r][i]`): a process's GPUs, then the job's processes.
std::vector<double> slowest_per_iteration(const std::vector<std::vector<double>>& rows);

}  // namespace linkscope::coll
