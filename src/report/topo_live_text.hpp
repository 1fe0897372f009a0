#pragma once
#include <optional>
#include <string>
#include <vector>

#include "discover/nccl_probe.hpp"
#include "discover/path_compare.hpp"
#include "discover/system_facts.hpp"

namespace linkscope::report {

// What `linkscope topo` (live) shows besides the hardware facts: the model of the synthesized XML and
// how it compares with what NCCL itself built.
struct TopoLiveModelView {
  std::vector<std::string> model_path_lines;  // linkscope's model of the synthesized XML
  std::string model_relation_matrix;          // the same model in nvidia-smi terms (GPUn = rank)
  std::string model_reason;                   // why there is no model ("" when there is one)
  std::vector<std::string> synthesis_notes;
  const discover::NcclProbeResult* nccl = nullptr;  // null: not asked (--no-nccl)
  std::optional<discover::PathComparison> versus_nccl_log;   // ours vs the paths NCCL printed
  std::optional<discover::PathComparison> versus_nccl_dump;  // ours vs our model of NCCL's dump XML
};

// `nvidia-smi topo -m` from the facts: GPUs by NVML index (as nvidia-smi numbers them), RDMA NICs, CPU
// and NUMA affinity, legend. Tab-separated like nvidia-smi (without its terminal underline).
std::string render_smi_matrix(const discover::SystemFacts& facts);
// `nvidia-smi topo -p2p <r|w|n|a>`-style matrix for one NVML P2P capability ("read", "write", "nvlink",
// "atomics"), plus a CUDA peer-access matrix ("cuda") by CUDA ordinal.
std::string render_p2p_matrix(const discover::SystemFacts& facts, const std::string& capability);
// Everything `linkscope topo` prints in text form.
std::string render_topo_live_text(const discover::SystemFacts& facts, const TopoLiveModelView& model);
// The sysfs-only view for a machine without a usable driver (PCI display devices, NUMA, NICs).
std::string render_sysfs_only_text(const discover::SystemFacts& facts);

}  // namespace linkscope::report
