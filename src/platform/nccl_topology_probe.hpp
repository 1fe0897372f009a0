#pragma once
#include <string>

namespace linkscope::platform {

struct NcclProbeOutcome {
  std::string nccl_version;  // "2.28.3" (the library that ran)
  int device_count = 0;      // communicators created (one per CUDA-visible GPU)
  double init_seconds = 0;   // wall time of ncclCommInitAll
};

// Makes NCCL build its topology: one communicator per CUDA-visible GPU in this process (ncclCommInitAll,
// rank = CUDA ordinal), then destroys them. NCCL writes its topology dump and log where the environment says
// (NCCL_TOPO_DUMP_FILE, NCCL_DEBUG_FILE), so run it in a child process that sets those. Throws DeviceError
// when there is no GPU or NCCL fails.
NcclProbeOutcome run_nccl_topology_probe();

}  // namespace linkscope::platform
