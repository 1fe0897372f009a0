#pragma once
#include <string>
#include <vector>

#include "discover/cpu_info.hpp"
#include "discover/nic_reader.hpp"
#include "discover/pci_tree.hpp"
#include "discover/sysfs_root.hpp"
#include "model/host_evidence.hpp"

// The evidence behind NCCL's P2P and GPUDirect RDMA gates, read from sysfs and procfs below the root (every path
// is listed in docs/discovery.md, "Host evidence", for captures): one reader per subject, joined by
// read_host_evidence.
namespace linkscope::discover {

// NVIDIA GPUs (class 0x03, vendor 0x10de) in the PCI tree.
std::vector<std::string> nvidia_gpu_bdfs(const PciTree& pci);

// /sys/class/iommu, each device's iommu_group and its type, /proc/cmdline.
model::Iommu read_iommu(const SysfsRoot& root, const PciTree& pci, const std::vector<std::string>& devices);
// The IOMMU options of a kernel command line ("iommu=pt", "intel_iommu=on", "amd_iommu=off", "iommu.passthrough=1").
std::vector<std::string> iommu_cmdline_options(const std::string& cmdline);

// /proc/modules, /sys/module/{nvidia_peermem,nv_peer_mem}, /sys/kernel/mm/memory_peers, /proc/sys/kernel/osrelease.
model::PeerMemory read_peer_memory(const SysfsRoot& root);

// The hypervisor flag, DMI vendor and product, bridges hypervisors emulate, GPUs without a NUMA node.
model::Virtualization read_virtualization(const SysfsRoot& root, const PciTree& pci, const std::optional<CpuInfo>& cpu,
                                          int numa_nodes);
// A bridge a hypervisor emulates (QEMU's Red Hat 1b36 bridges, its TI XIO3130 switch ports 104c:8232/8233, VMware's
// root port 15ad:07a0).
bool is_virtual_bridge(const PciDevice& device);

// All of the above, with the PCIe paths between GPUs and RDMA NICs and the node GUIDs RDMA devices share.
model::HostEvidence read_host_evidence(const SysfsRoot& root, const PciTree& pci, const std::vector<NicDevice>& nics,
                                       const std::optional<CpuInfo>& cpu, int numa_nodes);

}  // namespace linkscope::discover
