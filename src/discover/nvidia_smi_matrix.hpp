#pragma once
#include <optional>

#include "discover/system_facts.hpp"
#include "model/system.hpp"

namespace linkscope::discover {

// `nvidia-smi topo -m` from the facts (system.smi_matrix): GPUs by NVML index as nvidia-smi numbers them (without
// NVML, the display devices sysfs lists), then the RDMA NICs; GPU pairs take NVML's relation, everything else the
// PCI tree's; CPU and NUMA affinity and NVML's GPU NUMA id per GPU. Nothing when there is no GPU or NIC to show.
std::optional<model::SmiMatrix> nvidia_smi_matrix(const SystemFacts& facts);

}  // namespace linkscope::discover
