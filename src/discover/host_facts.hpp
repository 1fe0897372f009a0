#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "discover/cpu_info.hpp"
#include "discover/host_evidence.hpp"
#include "discover/nic_reader.hpp"
#include "discover/numa_reader.hpp"
#include "discover/pci_tree.hpp"
#include "discover/sysfs_root.hpp"

namespace linkscope::discover {

// Everything discovery reads from sysfs and /proc (no driver needed).
struct HostFacts {
  std::string sysfs_root = "/";
  PciTree pci;
  std::vector<NumaNode> numa_nodes;
  std::vector<NicDevice> nics;
  std::optional<CpuInfo> cpu;
  // ACS/ATS on GPU paths, IOMMU, GPUDirect RDMA peer memory (evidence.peer_memory.registered is what NCCL's IB
  // transport checks before it marks a NIC gdr="1"), virtualization.
  model::HostEvidence evidence;
  std::vector<std::string> nvidia_services;  // running NVIDIA daemons (nvidia_services.hpp)
  // Broadcom PEX switch peer links NCCL turns into <pcilink> (/sys/kernel/pci_switch_link/virtual_switch_links).
  std::map<std::string, std::vector<std::string>> bcm_switch_links;
  std::vector<std::string> warnings;  // what could not be read, one line each
};

HostFacts read_host_facts(const SysfsRoot& root);

}  // namespace linkscope::discover
