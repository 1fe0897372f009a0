#include "diagnose/host_evidence_checks.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include "diagnose/expectations.hpp"

namespace linkscope::diagnose {

namespace {

std::vector<const model::PciFunctionEvidence*> switch_ports(const model::HostEvidence& evidence,
                                                            const model::PciPath& path, bool readable) {
  std::vector<const model::PciFunctionEvidence*> ports;
  for (const auto& bdf : path.ports) {
    const model::PciFunctionEvidence* port = evidence.function(bdf);
    if (port == nullptr || port->role != "switch-port" || port->extended_config != readable) continue;
    if (!readable || (port->acs && port->acs->redirects())) ports.push_back(port);
  }
  return ports;
}

}  // namespace

std::optional<int> cuda_ordinal_at(const model::System& system, const std::string& pci_bdf) {
  for (const auto& gpu : system.gpus) {
    if (gpu.pci_bdf == pci_bdf) return gpu.cuda_ordinal;
  }
  return std::nullopt;
}

const model::Nic* rdma_nic(const model::System& system, const std::string& name) {
  for (const auto& nic : system.nics) {
    if (nic.name == name && nic.kind == "infiniband") return &nic;
  }
  return nullptr;
}

std::string endpoint_label(const model::System& system, const std::string& pci_bdf,
                           const std::optional<std::string>& nic) {
  if (nic) return fmt::format("{} ({})", *nic, pci_bdf);
  if (const auto ordinal = cuda_ordinal_at(system, pci_bdf)) return fmt::format("GPU{} ({})", *ordinal, pci_bdf);
  return fmt::format("GPU {}", pci_bdf);
}

std::string path_label(const model::System& system, const model::PciPath& path) {
  return fmt::format("{} - {}, {}", endpoint_label(system, path.from_bdf, std::nullopt),
                     endpoint_label(system, path.to_bdf, path.nic), path.relation);
}

bool pcie_peer_path(const model::System& system, const model::PciPath& path) {
  if (path.nic) return true;
  const auto a = cuda_ordinal_at(system, path.from_bdf);
  const auto b = cuda_ordinal_at(system, path.to_bdf);
  if (!a || !b) return true;
  const model::GpuPair* pair = system.pair(*a, *b);
  return pair == nullptr || (pair->nvlink_count == 0 && !pair->via_nvswitch);
}

bool turns_in_switch(const model::PciPath& path) { return path.relation == "PIX" || path.relation == "PXB"; }

std::vector<const model::PciFunctionEvidence*> redirecting_ports(const model::HostEvidence& evidence,
                                                                 const model::PciPath& path) {
  return switch_ports(evidence, path, true);
}

std::vector<const model::PciFunctionEvidence*> unread_switch_ports(const model::HostEvidence& evidence,
                                                                   const model::PciPath& path) {
  return switch_ports(evidence, path, false);
}

std::optional<int> kernel_version_code(const std::string& release) {
  char* end = nullptr;
  const long major = std::strtol(release.c_str(), &end, 10);
  if (end == release.c_str() || *end != '.') return std::nullopt;
  const char* minor_text = end + 1;
  const long minor = std::strtol(minor_text, &end, 10);
  if (end == minor_text || major < 0 || major > 1000 || minor < 0 || minor > 99) return std::nullopt;
  return static_cast<int>(major * 100 + minor);
}

std::optional<bool> dmabuf_possible(const model::PeerMemory& peer_memory, const EnvMap& env, std::string& why) {
  const auto it = env.find("NCCL_DMABUF_ENABLE");
  if (it != env.end() && std::atoi(it->second.c_str()) == 0) {
    why = fmt::format("NCCL_DMABUF_ENABLE={}", it->second);
    return false;
  }
  if (!peer_memory.kernel_release) {
    why = "kernel release not read";
    return std::nullopt;
  }
  const auto code = kernel_version_code(*peer_memory.kernel_release);
  const int needed = static_cast<int>(threshold(Threshold::kDmabufMinKernel));
  if (!code || *code < needed) {
    why = fmt::format("kernel {} is older than {}.{}", *peer_memory.kernel_release, needed / 100, needed % 100);
    return false;
  }
  return true;
}

}  // namespace linkscope::diagnose
