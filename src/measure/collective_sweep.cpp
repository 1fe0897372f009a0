#include "measure/collective_sweep.hpp"

#include "core/error.hpp"
#include "plan/nccl_tests_timing.hpp"

namespace linkscope::measure {

std::vector<model::CollectiveSeries> run_sweep(CollectiveBenchmark& bench, const SweepPlan& plan,
                                              const model::CollectiveSeries& prototype, const SizeCallback& on_size) {
  std::vector<model::CollectiveSeries> results;
  const bool host_loop = plan.options.clock == coll::TimingClock::kHostLoop;
  const bool until_signal = plan.cycles == 0;  // -N 0: SIGINT or SIGTERM ends the process, as it ends nccl-tests
  {
    std::optional<std::size_t> previous;
    for (std::size_t step = 0;; ++step) {
      const auto index = coll::sweep_series_at(step, plan.series.size(), plan.cycles, plan.options.clock);
      if (!index) break;
      const SeriesKey& key = plan.series[*index];
      const bool first_of_series = previous != index;
      previous = index;
      if (host_loop && first_of_series && !plan.sizes.empty() &&
          !bench.warm_up_series(key, plan.sizes.front(), plan.sizes.back(), plan.options)) {
        return results;  // the GPUs hung during the warm-up: the communicators are aborted
      }
      model::CollectiveSeries series = prototype;
      series.op = key.op;
      series.dtype = key.type;
      series.redop = key.redop;
      series.root = coll::op_is_rooted(key.op) ? key.root : -1;
      series.nccl_call = bench.call_name(key.op);
      bool stopped = false;
      for (std::uint64_t bytes : plan.sizes) {
        std::vector<model::CollectivePoint> points;
        for (bool in_place : {false, true}) {
          if (in_place ? !plan.in_place : !plan.out_of_place) continue;
          try {
            points.push_back(bench.measure(key, bytes, in_place, plan.options));
          } catch (const DeviceError& e) {
            if (plan.size_errors == SizeErrors::kThrow) throw;
            model::CollectivePoint failed;
            failed.requested_bytes = bytes;
            failed.in_place = in_place;
            failed.status = "error";
            failed.reason = e.what();
            points.push_back(std::move(failed));
            if (plan.size_errors == SizeErrors::kRecordAndStop) {
              stopped = true;
              break;
            }
          }
        }
        series.points.insert(series.points.end(), points.begin(), points.end());
        if (on_size) on_size(series, points);
        if (bench.aborted() || stopped) break;
      }
      // Without end, only the latest pass is kept: each pass was printed as it ran, and memory must not grow.
      if (until_signal) results.clear();
      results.push_back(std::move(series));
      if (bench.aborted() || stopped) return results;
    }
  }
  return results;
}

}  // namespace linkscope::measure
