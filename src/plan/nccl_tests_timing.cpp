#include "plan/nccl_tests_timing.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace linkscope::coll {

namespace {

double operations(const HostLoopReading& r) { return static_cast<double>(std::max(1, r.iters)) * std::max(1, r.agg_iters); }

// nccl-tests' nearest-rank index: ceil(n x p / 100) - 1, at most n - 1.
std::size_t percentile_index(std::size_t n, int percentile) {
  const std::size_t rank = (n * static_cast<std::size_t>(percentile) + 99) / 100;
  return std::min(n - 1, rank == 0 ? 0 : rank - 1);
}

}  // namespace

double seconds_per_operation(const HostLoopReading& r) {
  const double per_op = r.loop_seconds / operations(r);
  return r.graph_launches >= 1 ? per_op / r.graph_launches : per_op;
}

double cpu_seconds_per_operation(const HostLoopReading& r) { return r.enqueue_seconds / operations(r); }

int per_iteration_event_count(int iters, BlockingMode blocking) {
  return blocking == BlockingMode::kPerIterationExcludingBarrier ? 2 * iters : iters + 1;
}

int iteration_start_event(int iteration, BlockingMode blocking) {
  return blocking == BlockingMode::kPerIterationExcludingBarrier ? 2 * iteration : iteration;
}

int iteration_stop_event(int iteration, BlockingMode blocking) {
  return blocking == BlockingMode::kPerIterationExcludingBarrier ? 2 * iteration + 1 : iteration + 1;
}

double reduce_rank_values(const std::vector<double>& values, RankTimeReduction reduction) {
  if (values.empty()) return 0;
  switch (reduction) {
    case RankTimeReduction::kRank0: return values.front();
    case RankTimeReduction::kMinimum: return *std::min_element(values.begin(), values.end());
    case RankTimeReduction::kMaximum: return *std::max_element(values.begin(), values.end());
    case RankTimeReduction::kAverage: {
      double sum = 0;
      for (double v : values) sum += v;
      return sum / static_cast<double>(values.size());
    }
  }
  return values.front();
}

IterationStats iteration_stats(const std::vector<double>& seconds, int skip) {
  if (skip < 0 || static_cast<std::size_t>(skip) >= seconds.size()) {
    throw UsageError(fmt::format("-K {} skips every one of the {} timed iterations (-n): nothing left to summarise",
                                 skip, seconds.size()));
  }
  std::vector<double> sorted(seconds.begin() + skip, seconds.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  IterationStats s;
  s.min = sorted.front();
  s.max = sorted.back();
  s.p50 = sorted[n / 2];
  s.p95 = sorted[percentile_index(n, 95)];
  s.p99 = sorted[percentile_index(n, 99)];
  double sum = 0;
  for (double v : sorted) sum += v;
  s.avg = sum / static_cast<double>(n);
  double var = 0;
  for (double v : sorted) var += (v - s.avg) * (v - s.avg);
  s.stdev = std::sqrt(var / static_cast<double>(n));
  return s;
}

std::vector<double> slowest_per_iteration(const std::vector<std::vector<double>>& rows) {
  std::vector<double> out;
  for (const auto& row : rows) {
    if (out.size() < row.size()) out.resize(row.size(), 0.0);
    for (std::size_t i = 0; i < row.size(); ++i) out[i] = std::max(out[i], row[i]);
  }
  return out;
}

std::optional<std::size_t> sweep_series_at(std::size_t step, std::size_t series_count, int cycles, TimingClock clock) {
  if (series_count == 0) return std::nullopt;
  if (cycles > 0 && step >= series_count * static_cast<std::size_t>(cycles)) return std::nullopt;
  if (clock == TimingClock::kEvents) return step % series_count;
  return cycles > 0 ? step / static_cast<std::size_t>(cycles) : 0;
}

}  // namespace linkscope::coll
