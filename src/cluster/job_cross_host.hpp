#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cluster/cross_host_assembly.hpp"
#include "cluster/host_comparison.hpp"
#include "cluster/job_session.hpp"
#include "model/cross_host.hpp"
#include "plan/collective_spec.hpp"
#include "runtime/nccl_debug_capture.hpp"

// The cross-host tests of `linkscope cluster` (and `doctor` under MPI), run by every rank of the job: NCCL
// sendrecv between one GPU of each pair of hosts, in rounds of disjoint pairs, then one all_reduce over every
// rank, each through measure::run_collectives. Each pair is its own 2-rank communicator; which NIC it used comes
// from NCCL's log.
namespace linkscope::cluster {

struct CrossHostOptions {
  std::vector<std::uint64_t> sizes;  // sendrecv and all_reduce sizes (bytes)
  double max_time_s = 0.2;           // adaptive sampling budget per size
  double target_ci = 0.02;
  std::string schedule = "rounds";   // rounds | serial | gpu-to-rack
  int peers = 3;                     // gpu-to-rack: random peers per host
  std::uint64_t seed = 0;            // gpu-to-rack: the draw
  bool all_reduce = true;
  double timeout_s = 60;             // NCCL progress watchdog and the wait for a peer rank
  bool quiet = false;                // no progress lines
};

// Every rank calls this at the same point, after the NCCL log capture was applied. `hosts` (rank 0 only) are
// the hosts' facts: they choose the GPU of each host (closest to its NIC) and name slow NICs. The result is
// returned at rank 0. A rank that stops answering ends the job (MpiWaitTimeout); a pair or the all_reduce that
// fails in NCCL is recorded with its status and the rest goes on.
std::optional<model::CrossHost> measure_cross_host(ClusterSession& session, const HostsComparison* hosts,
                                                   const CrossHostOptions& options, runtime::NcclDebugCapture& capture);

// One collective over `members` (world ranks, ascending; this rank among them, each driving `device`), all of them
// calling it: the lowest member makes the id and sends it to the others. This rank's side, the series kept at the
// lowest member. Used by `--isolate` for its groups (cluster/job_isolation.hpp).
MeasuredSide measure_group(ClusterSession& session, runtime::NcclDebugCapture& capture, const CrossHostOptions& options,
                           coll::CollectiveOp op, const std::vector<int>& members, int device, const std::string& what);

// The GPU a rank drives under MPI (the greeting's cuda_device): one per rank, chosen by its node-local rank (or
// NCCL_TESTS_DEVICE) as `linkscope coll` does, or the test seam's simulated GPU (cluster/collective_runner.hpp); the reason
// when there is none.
void fill_rank_device(RankHello& hello);

}  // namespace linkscope::cluster
