#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/exit_code.hpp"
#include "measure/collective_process_group.hpp"
#include "measure/collective_sweep.hpp"
#include "model/collectives.hpp"
#include "model/runtime.hpp"
#include "plan/collective_options.hpp"
#include "plan/collective_run_plan.hpp"

namespace linkscope::runtime {
class NcclDebugCapture;
}

// One collective run, from a plan to typed results, for every command that runs NCCL collectives (`coll` and the
// *_perf names, `cluster`'s host pairs and all_reduce, `doctor` under MPI): the plan checked against the GPUs (types,
// memory), the NCCL id shared, the communicators created under an initialisation watchdog, the sweep with every point
// verified, and NCCL's log of every process read back. It prints nothing: callers print rows as they arrive through
// CollectiveProgress. This header includes no CUDA or NCCL header, so the CLI and the cluster job can use it.
namespace linkscope::measure {

// Bytes of an NCCL unique id (sizeof(ncclUniqueId), checked where nccl.h is included).
inline constexpr std::size_t kNcclIdBytes = 128;

// A fresh NCCL unique id as kNcclIdBytes bytes, for processes that pass it in their own messages (the cluster's host
// pairs). DeviceError when NCCL cannot make one.
std::string new_nccl_id();

struct CollectiveRequest {
  coll::CollPlan plan;
  // This process's GPUs (CUDA ordinals), plan.gpus_per_process of them: GPU i is NCCL rank
  // group.rank() x plan.gpus_per_process + i of group.size() x plan.gpus_per_process (with plan.split: the process's
  // rank and the number of processes within its colour instead).
  std::vector<int> devices;
  std::string launch = "single-process";        // recorded in every series ("single-process" or "mpi")
  std::map<std::string, std::string> nccl_env;  // the NCCL variables recorded in every series
  // The NCCL id (kNcclIdBytes) when the processes shared it in their own messages; absent: group rank 0 makes one
  // and broadcasts it through the group.
  std::optional<std::string> nccl_id;
  // nccl-tests' rule: sizes whose buffers do not fit the smallest GPU are dropped (the group agrees on that GPU).
  bool fit_sizes_to_memory = true;
  SizeErrors size_errors = SizeErrors::kRecordAndContinue;
  // NCCL's log: the initialisation watchdog removes its files before it ends the process, and with
  // `runtime_context` every process's log is gathered at group rank 0 into CollectiveRun::runtime.
  runtime::NcclDebugCapture* capture = nullptr;
  std::optional<std::string> runtime_context;  // "coll all_reduce"
  // The stderr line when NCCL's initialisation does not return within plan.timeout_s; the process then exits 4
  // (nothing else could interrupt NCCL there).
  std::string init_timeout_message;
};

// What runs, once the plan was checked against the GPUs; known before NCCL starts.
struct CollectiveSetup {
  coll::CollPlan plan;  // as it runs: the types the GPUs support, the sizes that fit, notes about both
  int nranks = 1;
  std::vector<coll::SeriesKey> series;  // every (type, reduction, root), in the order they run
  std::uint64_t buffer_bytes = 1;
  std::optional<std::uint64_t> reduced_max_bytes;  // sizes above it did not fit (nccl-tests' "Reducing maxBytes")
};

// Called as the run goes, on every process (callers print at rank 0 only).
struct CollectiveProgress {
  std::function<void(const CollectiveSetup& setup)> on_setup;
  // The communicators are up: every rank's GPU (at group rank 0; empty elsewhere).
  std::function<void(const std::vector<model::DeviceRecord>& devices)> on_started;
  SizeCallback on_size;  // after each size of a series, with that size's points
};

// nccl-tests' -M: the most device memory one of this process's GPUs gave to NCCL's initialisation with the buffers,
// to registering the buffers (-R), and to the collectives themselves (cudaMemGetInfo before and after each).
struct MemoryUse {
  std::int64_t initialization = 0, user_allocated = 0, collective = 0;
};

struct CollectiveRun {
  CollectiveSetup setup;
  std::vector<model::CollectiveSeries> series;      // what was measured (with every rank's GPU at group rank 0)
  std::vector<model::DeviceRecord> devices;         // every rank's GPU (group rank 0; empty elsewhere)
  std::vector<model::DeviceRecord> local_devices;   // this process's GPUs
  std::optional<model::RuntimeRun> runtime;         // with a runtime_context, at group rank 0: what NCCL chose
  bool aborted = false;                             // the communicators were aborted (a hang or an NCCL error)
  std::optional<MemoryUse> memory;                  // with the plan's memory_report (-M)

  // The worst outcome of the points: kTimeout (a hang), else kDevice (a CUDA/NCCL error), else kWrongResults,
  // else kOk.
  ExitCode status() const;
};

// Runs the request over the processes of `group` (each calls it with its own devices). Throws UsageError for a plan
// the GPUs cannot run, DeviceError for CUDA/NCCL failures outside the sweep (and inside it with SizeErrors::kThrow).
CollectiveRun run_collectives(const CollectiveRequest& request, ProcessGroup& group,
                              const CollectiveProgress& progress = {});

}  // namespace linkscope::measure
