#pragma once
#include <string>

#include "model/run.hpp"
#include "model/system.hpp"

// What `linkscope topo` prints, from the typed Run alone (system, model, errors), so the live command and
// `linkscope report run.json --format text` print the same text.
namespace linkscope::report {

// `nvidia-smi topo -m` (system.smi_matrix): tab-separated like nvidia-smi (without its terminal underline), then
// the legend; "" when discovery recorded no matrix.
std::string render_smi_matrix(const model::System& system);
// `nvidia-smi topo -p2p <r|w|n|a>`-style matrix for one NVML P2P capability ("read", "write", "nvlink",
// "atomics") by NVML index; "" without NVML GPUs.
std::string render_p2p_matrix(const model::System& system, const std::string& capability);
// The live view: the facts, NCCL's model of the synthesized XML (the run's model section) and how it compares with
// NCCL's own topology.
std::string render_topo_live_text(const model::Run& run);
// The sysfs-only view for a machine without a usable driver (PCI display devices, NUMA, NICs).
std::string render_sysfs_only_text(const model::System& system);
// What `linkscope topo` prints for its run: the sysfs-only view without a driver, else the live view; under MPI
// (system.hosts) the hosts first, then this host in detail.
std::string render_topo_text(const model::Run& run);

}  // namespace linkscope::report
