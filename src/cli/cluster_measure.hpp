#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/cluster_session.hpp"
#include "cluster/cross_host.hpp"
#include "cluster/host_comparison.hpp"
#include "core/run.hpp"
#include "runtime/nccl_debug_capture.hpp"

// The cross-host tests of `linkscope cluster` (and `doctor` under MPI), run by every rank of the job: NCCL
// sendrecv between one GPU of each pair of hosts, in rounds of disjoint pairs, then one all_reduce over every
// rank. Each pair is its own 2-rank communicator; which NIC it used comes from NCCL's log.
namespace linkscope::cli {

struct CrossHostOptions {
  std::vector<std::uint64_t> sizes;  // sendrecv and all_reduce sizes (bytes)
  double max_time_s = 0.2;           // adaptive sampling budget per size
  double target_ci = 0.02;
  std::string schedule = "rounds";   // rounds | serial
  bool all_reduce = true;
  double timeout_s = 60;             // NCCL progress watchdog and the wait for a peer rank
  bool quiet = false;                // no progress lines
};

struct CrossHostOutcome {
  cluster::CrossHostResult result;
  std::vector<cluster::SlowCulprit> slow;
};

// Every rank calls this at the same point, after the NCCL log capture was applied. `hosts` (rank 0 only) are
// the hosts' facts: they choose the GPU of each host (closest to its NIC) and name slow NICs. The result is
// returned at rank 0. A rank that stops answering ends the job (MpiWaitTimeout); a pair or the all_reduce that
// fails in NCCL is recorded with its status and the rest goes on.
std::optional<CrossHostOutcome> measure_cross_host(ClusterSession& session, const cluster::HostsComparison* hosts,
                                                   const CrossHostOptions& options, runtime::NcclDebugCapture& capture);

// The GPU a rank drives under MPI (the greeting's cuda_device): one per rank, chosen by its node-local rank (or
// NCCL_TESTS_DEVICE) as `linkscope coll` does; the reason when there is none.
void fill_rank_device(cluster::RankHello& hello);

// One error entry per failed pair, and for the all_reduce, in the Run's `errors`.
void record_cross_host_errors(RunDocument& run, const cluster::CrossHostResult& result);

// 4 when something timed out, 5 for wrong data, 3 for an NCCL/CUDA error, else 0.
int cross_host_exit_code(const cluster::CrossHostResult& result);

}  // namespace linkscope::cli
