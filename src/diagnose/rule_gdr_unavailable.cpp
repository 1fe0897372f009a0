// gdr-unavailable: GPUDirect RDMA off between a GPU and the RDMA NIC NCCL would use for it, with the gate that
// closed: no peer-memory client and no dma-buf, NCCL's distance rule (NCCL_NET_GDR_LEVEL), ACS redirect on the path.
// A machine without RDMA NICs has nothing to judge.
#include <algorithm>

#include <fmt/format.h>

#include "diagnose/host_evidence_checks.hpp"
#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

namespace {

const model::PciPath* path_between(const model::HostEvidence& host, const std::string& gpu, const std::string& nic) {
  for (const auto& path : host.pci_paths) {
    if (path.from_bdf == gpu && path.nic == nic) return &path;
  }
  return nullptr;
}

}  // namespace

std::optional<Finding> rule_gdr_unavailable(const Context& context) {
  const model::System& system = context.evidence.system;
  if (!system.host_evidence) return std::nullopt;
  const model::HostEvidence& host = *system.host_evidence;
  const bool any_rdma =
      std::any_of(system.nics.begin(), system.nics.end(), [](const model::Nic& n) { return n.kind == "infiniband"; });
  if (!any_rdma) return std::nullopt;
  Finding finding;
  finding.id = "gdr-unavailable";
  std::string dmabuf_why;
  const std::optional<bool> dmabuf = dmabuf_possible(host.peer_memory, context.user_env, dmabuf_why);
  const bool no_plumbing = !host.peer_memory.registered && dmabuf == false;
  bool distance = false, acs = false;
  if (no_plumbing) {
    finding.evidence.push_back(fmt::format(
        "no GPUDirect RDMA plumbing: no peer-memory client registered ({}; memory_peers: {}) and no dma-buf ({})",
        host.peer_memory.modules.empty() ? "nvidia_peermem not loaded" : "modules loaded but not registered",
        host.peer_memory.memory_peers.empty() ? "none" : host.peer_memory.memory_peers.front(), dmabuf_why));
  }
  for (const auto& gpu : system.gpu_nics) {
    if (!gpu.closest || rdma_nic(system, *gpu.closest) == nullptr) continue;
    const auto relation = std::find_if(gpu.nics.begin(), gpu.nics.end(),
                                       [&](const model::GpuNicRelation& r) { return r.name == *gpu.closest; });
    if (relation == gpu.nics.end()) continue;
    const std::string label =
        fmt::format("GPU{} - {} ({})", gpu.cuda_ordinal.value_or(-1), relation->name, relation->relation);
    bool flagged = no_plumbing;
    // NCCL's model: the NIC's gdr flag follows the peer-memory test alone, so with dma-buf possible its "net gdr=0"
    // is not the gate; the distance rule is.
    const std::string reason = relation->gdr_reason.value_or("");
    if (relation->nccl_net && relation->gdr_write == std::string("Disabled") &&
        reason.find("gdr=0") == std::string::npos) {
      finding.evidence.push_back(fmt::format("{}: NCCL's model turns GPUDirect RDMA off: {}", label, reason));
      distance = flagged = true;
    }
    if (const model::PciPath* path = path_between(host, gpu.pci_bdf, relation->name);
        path != nullptr && turns_in_switch(*path)) {
      for (const auto* port : redirecting_ports(host, *path)) {
        finding.evidence.push_back(fmt::format(
            "{}: ACS redirect on switch port {} sends its traffic to the root complex", label, port->pci_bdf));
        acs = flagged = true;
      }
    }
    if (flagged) add_gpu_once(finding.gpus, gpu.cuda_ordinal);
  }
  if (!no_plumbing && !distance && !acs) return std::nullopt;
  std::sort(finding.gpus.begin(), finding.gpus.end());
  const auto level = context.user_env.find("NCCL_NET_GDR_LEVEL");
  if (level != context.user_env.end()) finding.evidence.push_back("NCCL_NET_GDR_LEVEL=" + level->second);
  finding.severity = Severity::kWarning;
  finding.title =
      fmt::format("GPUDirect RDMA is unavailable for {} GPU(s) and their nearest RDMA NIC", finding.gpus.size());
  finding.explanation =
      "Without GPUDirect RDMA NCCL's network transport stages every message through host memory: inter-node "
      "bandwidth drops and CPU load rises. NCCL uses it when a peer-memory client (nvidia_peermem) is registered or "
      "dma-buf works, and the GPU-NIC path is within NCCL_NET_GDR_LEVEL (PXB by default).";
  std::vector<std::string> causes, next;
  if (no_plumbing) {
    causes.push_back("neither nvidia_peermem nor dma-buf");
    next.push_back("sudo modprobe nvidia_peermem (or a kernel >= 5.12 with NCCL_DMABUF_ENABLE=1)");
  }
  if (distance) {
    causes.push_back("the GPU-NIC distance is beyond NCCL_NET_GDR_LEVEL");
    next.push_back("place ranks on GPUs near their NIC, or NCCL_NET_GDR_LEVEL=SYS to allow it");
  }
  if (acs) {
    causes.push_back("ACS redirect on the GPU-NIC switch path");
    next.push_back("clear ACS redirect (see acs-redirects-p2p)");
  }
  for (const auto& c : causes) finding.cause += (finding.cause.empty() ? "" : "; ") + c;
  for (const auto& n : next) finding.next_command += n + "; ";
  finding.next_command +=
      "check with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NET (\"GPU Direct RDMA Enabled\", GDRDMA in "
      "the channel lines)";
  return finding;
}

}  // namespace linkscope::diagnose
