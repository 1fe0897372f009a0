#include "discover/host_facts.hpp"

#include <fmt/format.h>

#include "discover/nvidia_services.hpp"

namespace linkscope::discover {

HostFacts read_host_facts(const SysfsRoot& root) {
  HostFacts facts;
  facts.sysfs_root = root.root();
  facts.pci = read_pci_tree(root);
  if (facts.pci.devices().empty()) {
    facts.warnings.push_back(fmt::format("no PCI devices under {}/sys/bus/pci/devices", root.is_live() ? "" : root.root()));
  }
  facts.numa_nodes = read_numa_nodes(root);
  if (facts.numa_nodes.empty()) facts.warnings.push_back("no NUMA nodes under /sys/devices/system/node");
  facts.nics = read_nics(root, facts.pci);
  facts.cpu = read_cpu_info(root);
  if (!facts.cpu) facts.warnings.push_back("no /proc/cpuinfo: CPU vendor and model unknown");
  const int numa_nodes = static_cast<int>(facts.numa_nodes.size());
  facts.evidence = read_host_evidence(root, facts.pci, facts.nics, facts.cpu, numa_nodes);
  facts.nvidia_services = running_nvidia_services(root);
  const std::string links = "/sys/kernel/pci_switch_link/virtual_switch_links";
  for (const auto& bus_id : root.list(links)) {
    for (const auto& peer : root.list(links + "/" + bus_id)) {
      if (is_sysfs_bdf(peer) && facts.pci.find(peer) != nullptr) facts.bcm_switch_links[bus_id].push_back(peer);
    }
  }
  return facts;
}

}  // namespace linkscope::discover
