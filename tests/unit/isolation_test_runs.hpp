#pragma once
// A `cluster --isolate` result made by the real planner: eight hosts h0..h7, one slow and one hung (-1: none), with the
// busbw an executor would record. Shared by the isolation report, fleet and Prometheus tests.
#include <algorithm>

#include "cluster/isolation_plan.hpp"
#include "model/cross_host.hpp"

namespace linkscope::test {

inline model::CrossHost isolated_cross_host(int slow = 5, int hung = 2, double good_gbps = 49.9,
                                            double slow_gbps = 12.5) {
  cluster::IsolationPlanner planner(8);
  for (auto run = planner.next_run(); !run.empty(); run = planner.next_run()) {
    for (auto& group : run) {
      const auto has = [&](int host) { return std::find(group.hosts.begin(), group.hosts.end(), host) != group.hosts.end(); };
      group.outcome = has(hung) ? model::GroupOutcome::kHung : has(slow) ? model::GroupOutcome::kSlow : model::GroupOutcome::kOk;
      if (group.outcome != model::GroupOutcome::kHung) group.busbw_gbps = has(slow) ? slow_gbps : good_gbps;
      if (group.outcome == model::GroupOutcome::kHung) group.reason = "simulated fabric: h" + std::to_string(hung) + " marked hung";
    }
    planner.record(run);
  }
  model::CrossHost cross;
  cross.hosts = {"h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7"};
  cross.schedule = "isolate";
  cross.sizes_bytes = {16ull << 20};
  cross.isolation = planner.report();
  cross.isolation->expected_gbps = 40;
  cross.isolation->shortfall = 0.1;
  cross.isolation->expected_from = "--expect-gbps";
  cross.isolation->runner = "NCCL";
  return cross;
}

}  // namespace linkscope::test
