#pragma once
#include <optional>

#include "cluster/host_comparison.hpp"
#include "cluster/isolation_expectation.hpp"
#include "cluster/job_cross_host.hpp"
#include "cluster/job_session.hpp"
#include "model/cross_host.hpp"
#include "runtime/nccl_debug_capture.hpp"

// `cluster --isolate`, run by every rank of the job: rank 0 plans (cluster/isolation_plan) and sends each run's
// groups; the rank that measures for each host (as for the pairs: cluster/representatives) runs an all_reduce with
// the other members of its group, every group at once; the lowest member of each judges its busbw at the largest
// size against the expectation and rank 0 gathers the outcomes, until the planner is done.
namespace linkscope::cluster {

// What the groups are judged against (cluster/isolation_expectation), rank 0's to choose: --expect-gbps when given,
// else the baseline's numbers for rank 0's machine type, else the NICs' rate.
struct IsolationOptions {
  std::optional<IsolationExpectation> given;  // --expect-gbps
  const fleet::Baseline* baseline = nullptr;  // --baseline
  std::string baseline_name, machine_type;
};

// The cross-host section at rank 0 (hosts, sizes, schedule "isolate", `isolation`, and a slow culprit per host named
// slow or hung); nothing elsewhere. A group that times out is "hung"; one that fails otherwise counts as "slow",
// with NCCL's reason kept. When rank 0 finds nothing to judge the groups against, no collective runs and the
// isolation has no `expected_gbps`, its notes saying why.
std::optional<model::CrossHost> isolate_slow_hosts(ClusterSession& session, const HostsComparison* hosts,
                                                   const CrossHostOptions& options, const IsolationOptions& isolation,
                                                   runtime::NcclDebugCapture& capture);

}  // namespace linkscope::cluster
