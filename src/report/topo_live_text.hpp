#pragma once
#include <optional>
#include <string>
#include <vector>

#include "discover/live_discovery.hpp"
#include "discover/live_model_check.hpp"
#include "discover/system_facts.hpp"

namespace linkscope::report {

// `nvidia-smi topo -m` from the facts: GPUs by NVML index (as nvidia-smi numbers them), RDMA NICs, CPU
// and NUMA affinity, legend. Tab-separated like nvidia-smi (without its terminal underline).
std::string render_smi_matrix(const discover::SystemFacts& facts);
// `nvidia-smi topo -p2p <r|w|n|a>`-style matrix for one NVML P2P capability ("read", "write", "nvlink",
// "atomics"), plus a CUDA peer-access matrix ("cuda") by CUDA ordinal.
std::string render_p2p_matrix(const discover::SystemFacts& facts, const std::string& capability);
// Everything `linkscope topo` prints in text form: the facts, the model of the synthesized XML and how it
// compares with NCCL's own topology.
std::string render_topo_live_text(const discover::LiveDiscovery& live, const discover::LiveModelCheck& check);
// The sysfs-only view for a machine without a usable driver (PCI display devices, NUMA, NICs).
std::string render_sysfs_only_text(const discover::SystemFacts& facts);

}  // namespace linkscope::report
