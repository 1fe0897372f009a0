// vm-topology-hidden: a virtual machine that hides the structure NCCL's topology needs: GPUs without a NUMA node,
// emulated bridges in place of the host's PCIe switches, NVLink remotes (NVSwitches) not visible. A warning where it
// changes NCCL's decisions (GPUs without NUMA placement in a guest with several NUMA nodes, GPU pairs without NVLink
// whose real PCIe path is unknown); otherwise information.
#include <fmt/format.h>

#include "core/text.hpp"
#include "diagnose/expectations.hpp"
#include "diagnose/host_evidence_checks.hpp"
#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_vm_topology_hidden(const Context& context) {
  const model::System& system = context.evidence.system;
  if (!system.host_evidence || !system.host_evidence->virtualization.is_vm()) return std::nullopt;
  const model::HostEvidence& host = *system.host_evidence;
  const model::Virtualization& vm = host.virtualization;
  Finding finding;
  finding.id = "vm-topology-hidden";
  bool decisive = false;
  if (!vm.gpus_without_numa.empty()) {
    const bool several_nodes = vm.numa_nodes >= static_cast<int>(threshold(Threshold::kVmNumaNodesForPlacement));
    finding.evidence.push_back(fmt::format("GPUs with numa_node -1: {} (the guest has {} NUMA node(s))",
                                           join(vm.gpus_without_numa, " "), vm.numa_nodes));
    decisive = decisive || several_nodes;
  }
  for (const auto& path : host.pci_paths) {
    if (path.nic || !pcie_peer_path(system, path)) continue;
    finding.evidence.push_back(fmt::format(
        "{}: no NVLink; the PCIe path the guest shows is the hypervisor's, not the host's", path_label(system, path)));
    add_gpu_once(finding.gpus, cuda_ordinal_at(system, path.from_bdf));
    add_gpu_once(finding.gpus, cuda_ordinal_at(system, path.to_bdf));
    decisive = true;
  }
  if (!vm.virtual_bridges.empty()) finding.evidence.push_back("emulated bridges: " + join(vm.virtual_bridges, ", "));
  for (const auto& line : vm.hidden_nvlink_remotes)
    finding.evidence.push_back("NVLink remote not in the PCI tree: " + line);
  if (finding.evidence.empty()) return std::nullopt;
  std::string where = vm.hypervisor_flag ? "hypervisor CPU flag" : "emulated bridges";
  if (vm.sys_vendor || vm.product_name)
    where += fmt::format("; DMI: {} {}", vm.sys_vendor.value_or(""), vm.product_name.value_or(""));
  finding.evidence.insert(finding.evidence.begin(), "virtual machine: " + where);
  finding.severity = decisive ? Severity::kWarning : Severity::kInfo;
  finding.title = decisive ? "this VM hides topology NCCL's decisions depend on"
                           : "this VM hides part of the host's topology (NCCL's decisions here do not depend on it)";
  finding.explanation =
      "NCCL builds its topology from the guest's sysfs. Without NUMA nodes it cannot place GPUs and NICs on CPUs; "
      "emulated bridges replace the host's PCIe switches, so P2P and GPUDirect RDMA levels are judged on a path that "
      "does not exist. NVLinked GPUs keep their NVLink paths either way.";
  finding.cause = "the hypervisor passes GPUs through without the host's PCIe and NUMA structure";
  finding.next_command =
      "linkscope topo --dump-xml topo.xml; set the GPUs' and NICs' CPU (NUMA) and PCIe switch "
      "placement in it from the host's `nvidia-smi topo -m`; export NCCL_TOPO_FILE=$PWD/topo.xml";
  return finding;
}

}  // namespace linkscope::diagnose
