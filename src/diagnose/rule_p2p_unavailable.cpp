// p2p-unavailable: no peer access (CUDA or NVML P2P status) between GPUs whose topology allows it: an NVLink pair
// or a pair behind one PCIe switch tree (PIX/PXB).
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

namespace {

bool topology_allows_p2p(const PairView& pair) {
  return pair.has_nvlink() || pair.relation == "PIX" || pair.relation == "PXB";
}

}  // namespace

std::optional<Finding> rule_p2p_unavailable(const Context& context) {
  const Evidence& evidence = context.evidence;
  Finding finding;
  finding.id = "p2p-unavailable";
  bool nvlink_pair = false;
  std::set<std::pair<int, int>> flagged;
  for (const auto& pair : evidence.pairs) {
    if (evidence.gpu(pair.a) == nullptr || evidence.gpu(pair.b) == nullptr || !topology_allows_p2p(pair)) continue;
    std::vector<std::string> problems;
    if (pair.cuda_peer_access && !*pair.cuda_peer_access) problems.push_back("cudaDeviceCanAccessPeer = 0");
    for (const char* kind : {"read", "write"}) {
      const auto it = pair.nvml_p2p.find(kind);
      if (it != pair.nvml_p2p.end() && it->second != "OK") {
        problems.push_back(fmt::format("NVML P2P {} status {}", kind, it->second));
      }
    }
    if (problems.empty()) continue;
    std::string text;
    for (const auto& p : problems) text += (text.empty() ? "" : ", ") + p;
    finding.evidence.push_back(fmt::format("GPU{}-GPU{} ({}): {}", pair.a, pair.b, pair.relation, text));
    flagged.insert({std::min(pair.a, pair.b), std::max(pair.a, pair.b)});
    nvlink_pair = nvlink_pair || pair.has_nvlink();
  }
  // Measured pairs that had no peer access although the topology would allow it.
  for (const auto* copy : evidence.p2p) {
    const model::CopyPoint& point = *copy;
    if (point.status != model::PointStatus::kNa) continue;
    const PairView* pair = evidence.pair(point.src, point.dst);
    if (pair == nullptr || !topology_allows_p2p(*pair)) continue;
    const std::pair<int, int> key{std::min(point.src, point.dst), std::max(point.src, point.dst)};
    if (flagged.insert(key).second) {
      finding.evidence.push_back(fmt::format("GPU{}->GPU{} ({}): copy not measured: {}", point.src, point.dst,
                                             pair->relation, point.reason.empty() ? "no peer access" : point.reason));
      nvlink_pair = nvlink_pair || pair->has_nvlink();
    }
  }
  if (finding.evidence.empty()) return std::nullopt;
  for (const auto& [a, b] : flagged) {
    finding.gpus.push_back(a);
    finding.gpus.push_back(b);
  }
  std::sort(finding.gpus.begin(), finding.gpus.end());
  finding.gpus.erase(std::unique(finding.gpus.begin(), finding.gpus.end()), finding.gpus.end());
  finding.severity = nvlink_pair ? Severity::kError : Severity::kWarning;
  finding.title = fmt::format("peer-to-peer access is off for {} GPU pair(s) whose topology allows it", flagged.size());
  finding.explanation =
      "Without P2P, CUDA peer copies are staged through host memory and NCCL falls back to SHM: bandwidth drops to "
      "PCIe/host speed and latency grows. NCCL refuses to start on NVLink pairs whose NVML P2P status is not OK.";
  finding.cause = nvlink_pair ? "driver/NVML reports P2P off on NVLink: a link or fabric fault, or fabric manager "
                                "not running"
                              : "PCIe ACS/IOMMU redirecting peer traffic (common in VMs and with IOMMU on), or a "
                                "chipset without P2P support";
  finding.next_command = "nvidia-smi topo -p2p r; nvidia-smi topo -p2p w";
  return finding;
}

}  // namespace linkscope::diagnose
