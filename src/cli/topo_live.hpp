#pragma once
#include <string>
#include <vector>

#include "core/environment.hpp"
#include "discover/live_discovery.hpp"
#include "discover/live_model_check.hpp"
#include "model/run.hpp"

namespace linkscope::cli {

// `linkscope topo` on the live machine (no --xml).
struct TopoLiveOptions {
  std::string format = "text";  // text | json | nccl-log
  std::string sysfs_root = "/";
  std::string capture_path;     // --capture FILE: the captured machine instead of this one
  bool ask_nccl = true;         // false: --no-nccl
  std::string dump_xml;         // --dump-xml FILE: write the synthesized XML there
  std::vector<std::string> env_assignments;  // --env K=V (the model and NCCL's child both see them)
  double nccl_timeout_seconds = 120;
  double mpi_timeout_seconds = 60;  // under MPI: how long rank 0 waits for another rank at each step
};

// What `linkscope topo` found on this machine: the environment it modelled with, the facts and the model.
struct TopoLiveResult {
  Environment env;
  discover::LiveDiscovery live;
  discover::LiveModelCheck check;
  std::string unavailable;  // why the view is incomplete as a whole ("NVIDIA driver unavailable: ..."), or ""
};

// Discovers this machine (or the capture) as `linkscope topo` does (no output); writes --dump-xml to `dump_xml_path`.
TopoLiveResult discover_topo_live(const TopoLiveOptions& options, const std::string& dump_xml_path);


// Discovers the machine (NVML from LINKSCOPE_NVML_LIBRARY or libnvidia-ml.so.1, the CUDA runtime, sysfs),
// models the synthesized XML, compares with NCCL's own topology and prints the chosen format. Throws
// DeviceError (exit 3) after printing when the NVIDIA driver or the CUDA runtime is unavailable, so the
// sysfs facts are still shown.
int run_topo_live(const TopoLiveOptions& options, const std::vector<std::string>& argv);

// `linkscope topo` under mpirun/srun: the leader of every host discovers it, rank 0 groups identical hosts,
// prints what differs between them (names the hosts) and then its own host in detail. Exit 3 when a host has
// no usable driver or CUDA runtime (named); other ranks print nothing.
int run_topo_cluster(const TopoLiveOptions& options, const std::vector<std::string>& argv);

}  // namespace linkscope::cli
