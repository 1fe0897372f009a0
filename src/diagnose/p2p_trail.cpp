#include "diagnose/p2p_trail.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/text.hpp"
#include "diagnose/host_evidence_checks.hpp"

namespace linkscope::diagnose {

namespace {

P2pGate user_variables(const EnvMap& env) {
  const auto disable = env.find("NCCL_P2P_DISABLE");
  if (disable != env.end() && p2p_level_override({*disable}) == path_type_index("LOC")) {
    return P2pGate{"user variables", "closed", "NCCL_P2P_DISABLE=" + disable->second};
  }
  const auto level = env.find("NCCL_P2P_LEVEL");
  return P2pGate{"user variables", "open", level == env.end() ? "none set" : "NCCL_P2P_LEVEL=" + level->second};
}

P2pGate path_against_level(const Evidence& evidence, const PairView& pair, const EnvMap& env) {
  std::string path = evidence.model_path_type(pair.a, pair.b);
  if (path.empty()) path = path_type_of_relation(pair.relation);
  const auto type = path_type_index(path);
  if (!type) return P2pGate{"path vs P2P level", "unknown", "path type not known"};
  const auto overridden = p2p_level_override(env);
  const int level = overridden.value_or(default_p2p_level());
  const std::string text = fmt::format("path {} {} level {}{}", path, *type <= level ? "<=" : ">",
                                       path_type_name(level), overridden ? "" : " (default)");
  return P2pGate{"path vs P2P level", *type <= level ? "open" : "closed", text};
}

P2pGate nvml_status(const PairView& pair) {
  if (pair.nvml_p2p.empty()) return P2pGate{"NVML P2P status", "unknown", "not read"};
  std::vector<std::string> states;
  bool ok = true;
  for (const char* kind : {"read", "write"}) {
    const auto it = pair.nvml_p2p.find(kind);
    if (it == pair.nvml_p2p.end()) continue;
    states.push_back(fmt::format("{} {}", kind, it->second));
    ok = ok && it->second == "OK";
  }
  if (states.empty()) return P2pGate{"NVML P2P status", "unknown", "not read"};
  return P2pGate{"NVML P2P status", ok ? "open" : "closed", join(states, ", ")};
}

P2pGate pcie_detours(const model::System& system, const PairView& pair) {
  if (pair.has_nvlink()) return P2pGate{"ACS/IOMMU", "open", "NVLink: not on the PCIe path"};
  if (!system.host_evidence) return P2pGate{"ACS/IOMMU", "unknown", "no host evidence in this run"};
  const model::HostEvidence& host = *system.host_evidence;
  const model::Gpu* a = system.gpu_by_cuda_ordinal(pair.a);
  const model::Gpu* b = system.gpu_by_cuda_ordinal(pair.b);
  for (const auto& path : host.pci_paths) {
    if (path.nic || a == nullptr || b == nullptr) continue;
    if (!((path.from_bdf == a->pci_bdf && path.to_bdf == b->pci_bdf) ||
          (path.from_bdf == b->pci_bdf && path.to_bdf == a->pci_bdf)))
      continue;
    std::vector<std::string> detours;
    if (turns_in_switch(path)) {
      for (const auto* port : redirecting_ports(host, path)) detours.push_back("ACS redirect at " + port->pci_bdf);
    }
    for (const auto& bdf : {path.from_bdf, path.to_bdf}) {
      const model::IommuDevice* device = host.iommu_device(bdf);
      if (device != nullptr && device->type && (*device->type == "DMA" || *device->type == "DMA-FQ")) {
        detours.push_back(fmt::format("IOMMU group {} {}", device->group.value_or("?"), *device->type));
      }
    }
    if (!detours.empty()) return P2pGate{"ACS/IOMMU", "detoured", join(detours, ", ")};
    if (turns_in_switch(path) && !unread_switch_ports(host, path).empty())
      return P2pGate{"ACS/IOMMU", "unknown", "ACS not readable (not root)"};
    return P2pGate{"ACS/IOMMU", "open", "no redirect, IOMMU " + host.iommu.mode};
  }
  return P2pGate{"ACS/IOMMU", "unknown", "the pair's PCIe path was not read"};
}

P2pGate cuda_access(const PairView& pair) {
  if (!pair.cuda_peer_access) return P2pGate{"CUDA peer access", "unknown", "not read"};
  return P2pGate{"CUDA peer access", *pair.cuda_peer_access ? "open" : "closed",
                 fmt::format("cudaDeviceCanAccessPeer = {}", *pair.cuda_peer_access ? 1 : 0)};
}

// The pairs CUDA shows, or, for a topology file alone, the model's GPU pairs by rank.
std::vector<PairView> pairs_of(const Evidence& evidence) {
  if (!evidence.pairs.empty()) return evidence.pairs;
  std::vector<PairView> pairs;
  for (std::size_t i = 0; i < evidence.model_gpus.size(); ++i) {
    for (std::size_t j = i + 1; j < evidence.model_gpus.size(); ++j) {
      const auto a = evidence.model_gpus[i].rank();
      const auto b = evidence.model_gpus[j].rank();
      if (!a || !b) continue;
      PairView pair;
      pair.a = std::min(*a, *b);
      pair.b = std::max(*a, *b);
      pair.relation = evidence.model_relation(pair.a, pair.b);
      pairs.push_back(std::move(pair));
    }
  }
  return pairs;
}

}  // namespace

const P2pGate* P2pTrail::first_stop() const {
  for (const auto& gate : gates) {
    if (gate.status == "closed" || gate.status == "detoured") return &gate;
  }
  return nullptr;
}

std::vector<P2pTrail> p2p_trails(const Context& context) {
  const Evidence& evidence = context.evidence;
  const bool from_system = !evidence.pairs.empty();
  std::vector<P2pTrail> trails;
  for (const auto& pair : pairs_of(evidence)) {
    if (from_system && (evidence.gpu(pair.a) == nullptr || evidence.gpu(pair.b) == nullptr)) continue;
    trails.push_back({pair.a,
                      pair.b,
                      {user_variables(context.user_env), path_against_level(evidence, pair, context.user_env),
                       nvml_status(pair), pcie_detours(evidence.system, pair), cuda_access(pair)}});
  }
  return trails;
}

std::string p2p_trail_line(const P2pTrail& trail) {
  std::vector<std::string> gates;
  for (const auto& gate : trail.gates)
    gates.push_back(fmt::format("{} {} ({})", gate.name, gate.status, gate.evidence));
  const P2pGate* stop = trail.first_stop();
  const std::string verdict =
      stop == nullptr
          ? "P2P on"
          : fmt::format("P2P {} at {} ({})", stop->status == "closed" ? "off" : "detoured", stop->name, stop->evidence);
  return fmt::format("GPU{}-GPU{}: {}; {}", trail.a, trail.b, verdict, join(gates, " > "));
}

}  // namespace linkscope::diagnose
