// nccl-tests 2.19.6's timing, for the *_perf personalities: a host timer started before the first operation of
// -n iterations is enqueued and read once the GPUs are done, so the `time` column includes what nccl-tests'
// includes (launch cost at small sizes). The arithmetic is plan/nccl_tests_timing.hpp.
#include <chrono>
#include <cstdlib>

#include <fmt/format.h>

#include "core/error.hpp"
#include "measure/collective_point_run.hpp"
#include "plan/nccl_tests_timing.hpp"

namespace linkscope::measure::point_run {

namespace {

using coll::BlockingMode;

// Space-separated numbers: how a process's per-iteration times travel to rank 0 through ProcessGroup::gather.
std::string encode_times(const std::vector<double>& seconds) {
  std::string text;
  for (double s : seconds) text += fmt::format("{:.17g} ", s);
  return text;
}

std::vector<double> decode_times(const std::string& text) {
  std::vector<double> out;
  const char* p = text.c_str();
  char* end = nullptr;
  for (double v = std::strtod(p, &end); end != p; v = std::strtod(p, &end)) {
    out.push_back(v);
    p = end;
  }
  return out;
}

// One value over the processes, as -a: rank 0's, the mean over the processes, the minimum or the maximum.
double reduce_over_processes(ProcessGroup& group, double value, coll::RankTimeReduction reduction) {
  std::vector<double> v{value};
  switch (reduction) {
    case coll::RankTimeReduction::kRank0:
      v[0] = group.rank() == 0 ? value : 0.0;
      group.allreduce(v, ProcessGroup::Op::kSum);
      return v[0];
    case coll::RankTimeReduction::kAverage:
      group.allreduce(v, ProcessGroup::Op::kSum);
      return v[0] / group.size();
    case coll::RankTimeReduction::kMinimum: group.allreduce(v, ProcessGroup::Op::kMin); return v[0];
    case coll::RankTimeReduction::kMaximum: group.allreduce(v, ProcessGroup::Op::kMax); return v[0];
  }
  return value;
}

model::IterationTimes iteration_times(ProcessGroup& group, const std::vector<std::vector<double>>& per_gpu, int skip) {
  const std::vector<double> mine = coll::slowest_per_iteration(per_gpu);
  const std::vector<std::string> rows = group.gather(encode_times(mine));
  model::IterationTimes t;
  t.skipped = skip;
  std::vector<std::vector<double>> per_process;
  for (const auto& row : rows) per_process.push_back(decode_times(row));
  if (group.rank() != 0) per_process = {mine};
  const std::vector<double> job = coll::slowest_per_iteration(per_process);
  const coll::IterationStats s = coll::iteration_stats(job, skip);
  for (double v : job) t.times_us.push_back(v * 1e6);
  if (per_process.size() > 1) {
    for (const auto& row : per_process) {
      std::vector<double> us;
      for (double v : row) us.push_back(v * 1e6);
      t.per_process_us.push_back(std::move(us));
    }
  }
  t.min_us = s.min * 1e6;
  t.max_us = s.max * 1e6;
  t.avg_us = s.avg * 1e6;
  t.p50_us = s.p50 * 1e6;
  t.p95_us = s.p95 * 1e6;
  t.p99_us = s.p99 * 1e6;
  t.stdev_us = s.stdev * 1e6;
  t.cv_pct = s.cv_percent();
  return t;
}

}  // namespace

std::optional<PointRun::HostLoop> PointRun::run_host_loop() {
  const auto& nccl = platform::nccl_library();
  const std::size_t n = comms_.local_count();
  const int iters = options_.fixed_iters.value_or(20);
  const int agg = options_.agg_iters;
  const BlockingMode blocking = options_.blocking;
  const bool per_iteration = blocking == BlockingMode::kPerIterationExcludingBarrier;
  const bool graph = options_.graph_launches > 0;
  const bool record = options_.per_iteration_timing;
  const int event_count = coll::per_iteration_event_count(iters, blocking);

  std::vector<std::vector<std::unique_ptr<platform::Event>>> events(n);
  if (record) {
    for (std::size_t i = 0; i < n; ++i) {
      for (int e = 0; e < event_count; ++e) events[i].push_back(std::make_unique<platform::Event>(comms_.local(i).device));
    }
  }
  const auto record_all = [&](int slot) {
    for (std::size_t i = 0; i < n; ++i) {
      platform::ScopedDevice scope(comms_.local(i).device);
      events[i][static_cast<std::size_t>(slot)]->record(comms_.stream(i));
    }
  };

  CapturedGraphs graphs;
  if (graph) {
    graphs.graphs.assign(n, nullptr);
    graphs.execs.assign(n, nullptr);
    for (std::size_t i = 0; i < n; ++i) {
      platform::ScopedDevice scope(comms_.local(i).device);
      LINKSCOPE_CUDA_CHECK(cudaStreamBeginCapture(comms_.stream(i), cudaStreamCaptureModeThreadLocal));
    }
  }

  double barrier_excluded_s = 0;  // -z 3: the loop's time without the barriers between iterations
  auto start = clock::now();
  for (int iter = 0; iter < iters; ++iter) {
    const auto t0 = clock::now();
    if (agg > 1) nccl_check(nccl.GroupStart(), "ncclGroupStart");
    if (record) record_all(coll::iteration_start_event(iter, blocking));
    for (int a = 0; a < agg; ++a) {
      enqueue_operation(static_cast<std::uint64_t>(iter) * agg + a);
      // -z: every operation is waited for (inside an -m group this waits for the previous iteration's work, as
      // nccl-tests does), -z 1 also holds the processes together after it.
      if (blocking != BlockingMode::kOff) {
        if (!wait("blocking operation")) return std::nullopt;
        if (blocking == BlockingMode::kWaitAndBarrier) group_.barrier();
      }
    }
    if (agg > 1) nccl_check(nccl.GroupEnd(), "ncclGroupEnd");
    if (per_iteration) {
      if (!wait("blocking iteration")) return std::nullopt;
      if (record) record_all(coll::iteration_stop_event(iter, blocking));
      barrier_excluded_s += std::chrono::duration<double>(clock::now() - t0).count();
      group_.barrier();
    }
  }
  if (record && !per_iteration) record_all(iters);

  if (graph) {
    for (std::size_t i = 0; i < n; ++i) {
      platform::ScopedDevice scope(comms_.local(i).device);
      LINKSCOPE_CUDA_CHECK(cudaStreamEndCapture(comms_.stream(i), &graphs.graphs[i]));
    }
    for (std::size_t i = 0; i < n; ++i) {
      platform::ScopedDevice scope(comms_.local(i).device);
      LINKSCOPE_CUDA_CHECK(cudaGraphInstantiate(&graphs.execs[i], graphs.graphs[i], 0));
    }
    group_.barrier();
    start = clock::now();
    for (int l = 0; l < options_.graph_launches; ++l) {
      for (std::size_t i = 0; i < n; ++i) {
        platform::ScopedDevice scope(comms_.local(i).device);
        LINKSCOPE_CUDA_CHECK(cudaGraphLaunch(graphs.execs[i], comms_.stream(i)));
      }
    }
  }

  HostLoop loop;
  loop.reading.iters = iters;
  loop.reading.agg_iters = agg;
  loop.reading.graph_launches = options_.graph_launches;
  const auto elapsed = [&] { return std::chrono::duration<double>(clock::now() - start).count(); };
  loop.reading.enqueue_seconds = per_iteration ? barrier_excluded_s : elapsed();
  // nccl-tests skips the final wait when -z already waited for the only operation of each iteration.
  const bool waited = blocking != BlockingMode::kOff && agg <= 1;
  if (!waited && !wait("timed iterations")) return std::nullopt;
  loop.reading.loop_seconds = per_iteration ? barrier_excluded_s : elapsed();

  // The last event of a blocking loop was recorded after its final wait: it must complete before it is read.
  if (record && waited && !wait("per-iteration events")) return std::nullopt;
  if (record) {
    loop.per_gpu_iteration_s.assign(n, std::vector<double>(static_cast<std::size_t>(iters), 0.0));
    for (std::size_t i = 0; i < n; ++i) {
      for (int it = 0; it < iters; ++it) {
        const auto& a = *events[i][static_cast<std::size_t>(coll::iteration_start_event(it, blocking))];
        const auto& b = *events[i][static_cast<std::size_t>(coll::iteration_stop_event(it, blocking))];
        loop.per_gpu_iteration_s[i][static_cast<std::size_t>(it)] = platform::Event::elapsed_ms(a, b) * 1e-3 / agg;
      }
    }
  }
  return loop;
}

model::CollectivePoint measure_host_timed(PointRun& run, model::CollectivePoint point, ProcessGroup& group, int nranks,
                                          const SeriesKey& key, const coll::CollectiveCounts& counts,
                                          const BenchmarkOptions& options) {
  auto failed = [&] {
    fail(point, run.failure_status(), run.failure());
    return point;
  };
  point.clock = "host-loop";
  if (!run.sync_operation()) return failed();
  const auto loop = run.run_host_loop();
  if (!loop) return failed();
  const double seconds = reduce_over_processes(group, coll::seconds_per_operation(loop->reading), options.reduction);
  const double us = seconds * 1e6;
  model::TimeSummary t;
  t.median_us = t.min_us = t.max_us = t.mean_us = us;
  point.time = t;
  point.samples = 1;
  point.iterations = static_cast<std::size_t>(loop->reading.iters) * loop->reading.agg_iters *
                     static_cast<std::size_t>(std::max(1, loop->reading.graph_launches));
  point.stop_reason = "fixed-count";
  // -C: each process's own enqueue time, as nccl-tests prints its own (it is not reduced there either).
  point.cputime_us = coll::cpu_seconds_per_operation(loop->reading) * 1e6;
  const coll::Bandwidth bw =
      coll::collective_bandwidth(key.op, counts.param_count, counts.size_bytes(), counts.element_size, seconds, nranks);
  point.algbw_gbps = bw.algbw_gbps;
  point.busbw_gbps = bw.busbw_gbps;
  if (options.per_iteration_timing) point.per_iteration = iteration_times(group, loop->per_gpu_iteration_s, options.per_iteration_skip);

  // nccl-tests checks after timing, with one more operation.
  bool ok = true;
  point.wrong = run.verify(ok);
  if (!ok) return failed();
  if (point.wrong && *point.wrong > 0) {
    point.status = "wrong";
    point.reason = fmt::format("{} wrong element(s) after one verified operation", *point.wrong);
  }
  return point;
}

}  // namespace linkscope::measure::point_run
