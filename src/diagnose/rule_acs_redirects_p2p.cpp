// acs-redirects-p2p: PCIe ACS Request/Completion Redirect enabled on a switch port that peer traffic between two
// GPUs (without NVLink) or a GPU and an RDMA NIC turns at: the switch sends it up to the root complex instead.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "diagnose/host_evidence_checks.hpp"
#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

namespace {

std::string control_text(const model::PciFunctionEvidence& port) {
  std::string text;
  for (const auto& bit : port.acs->control) text += (text.empty() ? "" : " ") + bit + "+";
  return text;
}

}  // namespace

std::optional<Finding> rule_acs_redirects_p2p(const Context& context) {
  const model::System& system = context.evidence.system;
  if (!system.host_evidence) return std::nullopt;
  const model::HostEvidence& host = *system.host_evidence;
  Finding finding;
  finding.id = "acs-redirects-p2p";
  std::vector<std::string> redirecting;  // port BDFs, first seen first
  std::set<std::string> unread;
  for (const auto& path : host.pci_paths) {
    if (!pcie_peer_path(system, path) || !turns_in_switch(path)) continue;
    for (const auto* port : redirecting_ports(host, path)) {
      finding.evidence.push_back(fmt::format("{}: switch port {} ACSCtl {} (ACS capability at 0x{:x})",
                                             path_label(system, path), port->pci_bdf, control_text(*port),
                                             port->acs->offset));
      if (std::find(redirecting.begin(), redirecting.end(), port->pci_bdf) == redirecting.end())
        redirecting.push_back(port->pci_bdf);
      add_gpu_once(finding.gpus, cuda_ordinal_at(system, path.from_bdf));
      add_gpu_once(finding.gpus, cuda_ordinal_at(system, path.to_bdf));
    }
    for (const auto* port : unread_switch_ports(host, path))
      unread.insert(port->pci_bdf + ": " + port->extended_config_reason);
  }
  for (const auto& line : unread) finding.evidence.push_back("ACS not known for switch port " + line);
  if (finding.evidence.empty()) return std::nullopt;
  std::sort(finding.gpus.begin(), finding.gpus.end());
  finding.numbers["redirecting_ports"] = redirecting.size();
  finding.numbers["unread_ports"] = unread.size();
  if (redirecting.empty()) {
    finding.severity = Severity::kInfo;
    finding.title = fmt::format("ACS of {} PCIe switch port(s) on GPU peer paths could not be read", unread.size());
    finding.explanation =
        "Whether these switch ports redirect peer traffic to the root complex is in the extended "
        "PCIe config space, which only root can read.";
    finding.cause = "linkscope ran without root (or the capture was taken without root)";
    finding.next_command = "sudo linkscope topo --format json  (or: sudo lspci -vvv | grep -E '^[0-9a-f]|ACSCtl')";
    return finding;
  }
  finding.severity = Severity::kWarning;
  finding.title =
      fmt::format("PCIe ACS redirects peer traffic to the root complex at {} switch port(s)", redirecting.size());
  finding.explanation =
      "With ACS Request/Completion Redirect on, a PCIe switch sends peer-to-peer requests up to the root complex "
      "(and its IOMMU) instead of across the switch: GPU peer copies and GPUDirect RDMA lose bandwidth, or hang "
      "where the root complex does not forward peer traffic. NCCL does not read ACS; it prints a HINT when GPUDirect "
      "RDMA fails.";
  finding.cause = "the kernel enables ACS redirect on switch ports when the IOMMU is on, or the BIOS/firmware does";
  std::string show, clear;
  for (const auto& bdf : redirecting) {
    show += fmt::format("{}sudo setpci -s {} ECAP_ACS+6.w", show.empty() ? "" : "; ", bdf);
    clear += fmt::format("{}sudo setpci -s {} ECAP_ACS+6.w=0000", clear.empty() ? "" : "; ", bdf);
  }
  std::string boot;
  for (const auto& bdf : redirecting) boot += (boot.empty() ? "" : ";") + bdf;
  finding.next_command = fmt::format(
      "{}  (shows ACSCtl); to clear until reboot: {}; to keep it off: boot with "
      "pci=disable_acs_redir={} or disable ACS in the BIOS (in a VM: on the host)",
      show, clear, boot);
  return finding;
}

}  // namespace linkscope::diagnose
