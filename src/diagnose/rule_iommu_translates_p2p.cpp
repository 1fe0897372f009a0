// iommu-translates-p2p: the IOMMU translates the DMA of GPUs or RDMA NICs whose peer traffic crosses PCIe (GPU pairs
// without NVLink, GPUDirect RDMA): every peer request then goes through the root complex for translation.
// Passthrough (iommu=pt, group type identity) and an IOMMU that is off are fine.
#include <algorithm>

#include <fmt/format.h>

#include "core/text.hpp"
#include "diagnose/host_evidence_checks.hpp"
#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_iommu_translates_p2p(const Context& context) {
  const model::System& system = context.evidence.system;
  if (!system.host_evidence || system.host_evidence->iommu.mode != "translated") return std::nullopt;
  const model::HostEvidence& host = *system.host_evidence;
  Finding finding;
  finding.id = "iommu-translates-p2p";
  int paths = 0;
  for (const auto& path : host.pci_paths) {
    if (!pcie_peer_path(system, path)) continue;
    const model::IommuDevice* from = host.iommu_device(path.from_bdf);
    const model::IommuDevice* to = host.iommu_device(path.to_bdf);
    const auto translated = [](const model::IommuDevice* d) {
      return d != nullptr && d->type && (*d->type == "DMA" || *d->type == "DMA-FQ");
    };
    if (!translated(from) && !translated(to)) continue;
    ++paths;
    const auto group = [](const model::IommuDevice* d) {
      return d != nullptr && d->group ? fmt::format("group {} {}", *d->group, d->type.value_or("?"))
                                      : std::string("no group");
    };
    finding.evidence.push_back(fmt::format("{}: IOMMU {} / {}", path_label(system, path), group(from), group(to)));
    add_gpu_once(finding.gpus, cuda_ordinal_at(system, path.from_bdf));
    add_gpu_once(finding.gpus, cuda_ordinal_at(system, path.to_bdf));
  }
  if (paths == 0) return std::nullopt;
  std::sort(finding.gpus.begin(), finding.gpus.end());
  const std::string options = join(host.iommu.cmdline_options, " ");
  finding.evidence.insert(
      finding.evidence.begin(),
      fmt::format("IOMMU mode translated ({}); units: {}; kernel command line: {}", host.iommu.mode_basis,
                  host.iommu.units.empty() ? "none listed" : join(host.iommu.units, " "),
                  options.empty() ? "no IOMMU option" : options));
  finding.numbers["paths"] = paths;
  finding.severity = Severity::kWarning;
  finding.title = fmt::format("the IOMMU translates peer traffic on {} PCIe GPU path(s)", paths);
  finding.explanation =
      "In a translated IOMMU domain (group type DMA or DMA-FQ) the kernel also turns on ACS redirect, so peer requests "
      "between GPUs or between a GPU and an RDMA NIC go up to the root complex to be translated: P2P and GPUDirect "
      "RDMA lose bandwidth or fail. Passthrough keeps the IOMMU for VMs and devices that need it.";
  finding.cause = "the kernel's default DMA domain is translated (no iommu=pt on the command line)";
  finding.next_command =
      "cat /proc/cmdline; cat /sys/kernel/iommu_groups/*/type; for passthrough add iommu=pt "
      "(Intel: intel_iommu=on iommu=pt) to the kernel command line and reboot";
  return finding;
}

}  // namespace linkscope::diagnose
