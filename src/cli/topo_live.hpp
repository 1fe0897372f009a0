#pragma once
#include <string>
#include <vector>

namespace linkscope::cli {

// `linkscope topo` on the live machine (no --xml).
struct TopoLiveOptions {
  std::string format = "text";  // text | json | nccl-log
  std::string sysfs_root = "/";
  bool ask_nccl = true;         // false: --no-nccl
  std::string dump_xml;         // --dump-xml FILE: write the synthesized XML there
  std::vector<std::string> env_assignments;  // --env K=V (the model and NCCL's child both see them)
  double nccl_timeout_seconds = 120;
};

// Discovers the machine (NVML from LINKSCOPE_NVML_LIBRARY or libnvidia-ml.so.1, the CUDA runtime, sysfs),
// models the synthesized XML, compares with NCCL's own topology and prints the chosen format. Throws
// DeviceError (exit 3) after printing when the NVIDIA driver or the CUDA runtime is unavailable, so the
// sysfs facts are still shown.
int run_topo_live(const TopoLiveOptions& options, const std::vector<std::string>& argv);

}  // namespace linkscope::cli
