// The isolation planner (`cluster --isolate`, src/cluster/isolation_plan) on simulated fleets of 1024 and 8192 hosts
// with 1, 2 or 4 slow hosts at random positions (a fixed seed): the runs and collectives it needs and the time it
// takes to plan them all. The simulated fabric answers each run at once (a group is slow when it holds a slow host),
// so the time is the planner's. bench/NOTES.md has the numbers.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <random>
#include <set>

#include "cluster/isolation_plan.hpp"

namespace {

using linkscope::cluster::GroupOutcome;
using linkscope::cluster::IsolationGroup;

void BM_IsolateSlowHosts(benchmark::State& state) {
  const int hosts = static_cast<int>(state.range(0));
  const int slow_count = static_cast<int>(state.range(1));
  std::mt19937 random(20261206u);
  double runs = 0, collectives = 0, max_runs = 0, max_collectives = 0, fleets = 0;
  bool exact = true;
  for (auto _ : state) {
    state.PauseTiming();
    std::set<int> slow;
    while (static_cast<int>(slow.size()) < slow_count) slow.insert(std::uniform_int_distribution<int>(0, hosts - 1)(random));
    state.ResumeTiming();
    const auto report = linkscope::cluster::isolate_hosts(hosts, [&](const std::vector<IsolationGroup>& run) {
      std::vector<GroupOutcome> outcomes;
      for (const auto& group : run) {
        const bool bad = std::any_of(group.hosts.begin(), group.hosts.end(), [&](int h) { return slow.count(h) > 0; });
        outcomes.push_back(bad ? GroupOutcome::kSlow : GroupOutcome::kOk);
      }
      return outcomes;
    });
    exact = exact && report.hosts_with(linkscope::cluster::HostVerdict::kSlow) == std::vector<int>(slow.begin(), slow.end());
    runs += static_cast<double>(report.runs.size());
    collectives += report.collectives();
    max_runs = std::max(max_runs, static_cast<double>(report.runs.size()));
    max_collectives = std::max(max_collectives, static_cast<double>(report.collectives()));
    ++fleets;
  }
  if (!exact) state.SkipWithError("a slow host was not named");
  state.counters["runs_mean"] = runs / fleets;
  state.counters["runs_max"] = max_runs;
  state.counters["collectives_mean"] = collectives / fleets;
  state.counters["collectives_max"] = max_collectives;
}
BENCHMARK(BM_IsolateSlowHosts)
    ->ArgsProduct({{1024, 8192}, {1, 2, 4}})
    ->ArgNames({"hosts", "slow"})
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
