#include "discover/host_evidence.hpp"

#include <map>

#include "discover/pcie_paths.hpp"

namespace linkscope::discover {

namespace {

std::vector<model::SharedNodeGuid> shared_node_guids(const std::vector<NicDevice>& nics) {
  std::map<std::string, std::vector<std::string>> by_guid;
  for (const auto& nic : nics) {
    if (nic.kind == "infiniband" && nic.node_guid && !nic.node_guid->empty())
      by_guid[*nic.node_guid].push_back(nic.name);
  }
  std::vector<model::SharedNodeGuid> shared;
  for (auto& [guid, names] : by_guid) {
    if (names.size() > 1) shared.push_back({guid, std::move(names)});
  }
  return shared;
}

}  // namespace

model::HostEvidence read_host_evidence(const SysfsRoot& root, const PciTree& pci, const std::vector<NicDevice>& nics,
                                       const std::optional<CpuInfo>& cpu, int numa_nodes) {
  model::HostEvidence out;
  const std::vector<std::string> gpus = nvidia_gpu_bdfs(pci);
  std::vector<PcieEndpoint> rdma;
  std::vector<std::string> devices = gpus;
  for (const auto& nic : nics) {
    if (nic.kind != "infiniband" || !nic.pci_bdf) continue;
    rdma.push_back({*nic.pci_bdf, nic.name});
    devices.push_back(*nic.pci_bdf);
  }
  PciePathEvidence paths = read_pcie_paths(root, pci, gpus, rdma);
  out.pci_functions = std::move(paths.functions);
  out.pci_paths = std::move(paths.paths);
  out.iommu = read_iommu(root, pci, devices);
  out.peer_memory = read_peer_memory(root);
  out.virtualization = read_virtualization(root, pci, cpu, numa_nodes);
  out.shared_node_guids = shared_node_guids(nics);
  return out;
}

}  // namespace linkscope::discover
