#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/environment.hpp"
#include "measure/collective_process_group.hpp"
#include "plan/collective_options.hpp"
#include "platform/mpi_session.hpp"
#include "runtime/launch_environment.hpp"
#include "runtime/nccl_debug_capture.hpp"

// The processes `linkscope coll` runs on (one, or the ranks of an MPI job) and --dry-run, which shows them.
namespace linkscope::cli {

struct CollProcesses {
  Environment env;  // as the command started, before NCCL's debug variables were set
  runtime::LaunchEnvironment launch;
  std::unique_ptr<runtime::NcclDebugCapture> capture;
  std::unique_ptr<platform::MpiSession> mpi;  // under a launcher
  std::unique_ptr<measure::ProcessGroup> group;

  int local_rank() const { return mpi ? mpi->local_rank() : 0; }
};

// Everything that must happen before anything touches NCCL: the refusal of a launcher without MPI, NCCL's debug-log
// capture, MPI.
CollProcesses start_coll_processes(Environment env, const runtime::LaunchEnvironment& launch,
                                   runtime::CaptureDetail capture_detail);

// This process's GPUs for the plan, by its node-local rank or NCCL_TESTS_DEVICE (coll::select_local_devices);
// DeviceError when the process sees no usable GPU.
std::vector<int> coll_gpus(const coll::CollPlan& plan, const CollProcesses& processes);

// --dry-run: what would run, on which processes and GPUs, without touching NCCL. Under MPI it exercises the
// bootstrap (ranks, node-local ranks, gather, broadcast) and checks that every process got the same options.
int coll_dry_run(const coll::CollPlan& plan, const std::vector<std::string>& argv, CollProcesses& processes);

}  // namespace linkscope::cli
