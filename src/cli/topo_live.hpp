#pragma once
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/environment.hpp"

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

// What the live mode needs from the topology model (src/topo) for one XML, in one load.
struct ModelSummary {
  std::vector<std::string> path_lines;  // NCCL's printed path lines
  nlohmann::json json;                  // the Run's `model` section
  std::string nccl_log;                 // NCCL's GRAPH output for the XML
  std::string relation_matrix;          // the model in nvidia-smi terms (GPUn = rank), for next to NVML's matrix
};
using TopologyModelFunction =
    std::function<ModelSummary(const std::string& xml, const std::string& source_name, const Environment& env)>;

// Discovers the machine, models the synthesized XML with `model`, compares with NCCL's own topology, prints
// the chosen format to stdout and returns the exit code. Throws DeviceError (exit 3) after printing when the
// NVIDIA driver or the CUDA runtime is unavailable, so the sysfs facts are still shown.
int run_topo_live(const TopoLiveOptions& options, const TopologyModelFunction& model, const std::vector<std::string>& argv);

}  // namespace linkscope::cli
