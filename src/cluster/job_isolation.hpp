#pragma once
#include <optional>

#include "cluster/host_comparison.hpp"
#include "cluster/job_cross_host.hpp"
#include "cluster/job_session.hpp"
#include "model/cross_host.hpp"
#include "runtime/nccl_debug_capture.hpp"

// `cluster --isolate`, run by every rank of the job: rank 0 plans (cluster/isolation_plan) and sends each run's
// groups; the rank that measures for each host (as for the pairs: cluster/representatives) runs an all_reduce with
// the other members of its group, every group at once; the lowest member of each judges its busbw at the largest
// size against the expectation and rank 0 gathers the outcomes, until the planner is done.
namespace linkscope::cluster {

// A group whose all_reduce busbw falls more than this share below the expectation is slow.
inline constexpr double kIsolationShortfall = 0.10;

struct IsolationOptions {
  double expected_gbps = 0;  // the all_reduce busbw at the largest size that good hosts reach
  double shortfall = kIsolationShortfall;
};

// The cross-host section at rank 0 (hosts, sizes, schedule "isolate", `isolation`, and a slow culprit per host named
// slow or hung); nothing elsewhere. A group that times out is "hung"; one that fails otherwise counts as "slow",
// with NCCL's reason kept.
std::optional<model::CrossHost> isolate_slow_hosts(ClusterSession& session, const HostsComparison* hosts,
                                                   const CrossHostOptions& options, const IsolationOptions& isolation,
                                                   runtime::NcclDebugCapture& capture);

}  // namespace linkscope::cluster
