// nvlink-missing: a GPU without any active NVLink while its identical peers have NVLink, or a pair without NVLink
// on a machine whose identical GPUs are meant to be fully connected.
#include <algorithm>

#include <fmt/format.h>

#include "diagnose/expectations.hpp"
#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

namespace {

void finish(Finding& finding) {
  finding.id = "nvlink-missing";
  finding.severity = Severity::kError;
  finding.explanation =
      "Without NVLink, traffic to this GPU goes over PCIe and the host: peer copies and NCCL collectives drop to "
      "PCIe speed (about a tenth of NVLink on H100/H200 class machines), and NCCL may split rings around it.";
  finding.cause = "NVLink not trained or disabled: a failed link/NVSwitch, a missing bridge, or fabric manager "
                  "not running (on NVSwitch systems)";
}

std::optional<Finding> from_system(const Context& context) {
  const Evidence& evidence = context.evidence;
  Finding finding;
  std::vector<std::string> missing_gpus;
  for (const auto* gpu_facts : evidence.gpus) {
    const model::Gpu& gpu = *gpu_facts;
    if (!gpu.nvlinks.has_value() || gpu.active_nvlinks() > 0) continue;
    int peers_with = 0, peers = 0;
    std::vector<double> peer_counts;
    for (const auto* other : evidence.gpus) {
      if (other == &gpu || !other->nvlinks.has_value() || !gpu.same_kind(*other)) continue;
      ++peers;
      if (other->active_nvlinks() > 0) ++peers_with;
      peer_counts.push_back(other->active_nvlinks());
    }
    if (peers == 0 || peers_with * 2 < peers) continue;
    const auto reference = peer_reference(peer_counts, 0.0).value_or(0.0);
    finding.evidence.push_back(fmt::format("{} ({}): 0 active NVLinks of {} listed; its {} identical peer(s) have {:.0f}",
                                           gpu.label(), gpu.pci_bdf, gpu.nvlink_list().size(), peers, reference));
    missing_gpus.push_back(gpu.label());
    if (gpu.cuda_ordinal) finding.gpus.push_back(*gpu.cuda_ordinal);
  }

  // Pairs: only between GPUs that do have NVLink, on machines where nearly every pair is NVLinked.
  std::vector<std::pair<int, int>> nvlinked, without;
  for (const auto& pair : evidence.pairs) {
    const model::Gpu* a = evidence.gpu(pair.a);
    const model::Gpu* b = evidence.gpu(pair.b);
    if (a == nullptr || b == nullptr || !a->same_kind(*b)) continue;
    if (a->active_nvlinks() == 0 || b->active_nvlinks() == 0) continue;
    (pair.has_nvlink() ? nvlinked : without).push_back({pair.a, pair.b});
  }
  const std::size_t total = nvlinked.size() + without.size();
  if (!without.empty() &&
      static_cast<double>(nvlinked.size()) >= threshold(Threshold::kNvlinkPairShareForMesh) * static_cast<double>(total)) {
    for (const auto& [a, b] : without) {
      const PairView* pair = evidence.pair(a, b);
      finding.evidence.push_back(fmt::format("GPU{}-GPU{}: {} (no NVLink) while {} of {} pairs of identical GPUs are "
                                             "NVLinked",
                                             a, b, pair != nullptr ? pair->relation : "?", nvlinked.size(), total));
      finding.gpus.push_back(a);
      finding.gpus.push_back(b);
    }
  }
  if (finding.evidence.empty()) return std::nullopt;
  finish(finding);
  std::sort(finding.gpus.begin(), finding.gpus.end());
  finding.gpus.erase(std::unique(finding.gpus.begin(), finding.gpus.end()), finding.gpus.end());
  finding.title = missing_gpus.empty() ? "GPU pair(s) without NVLink on a fully connected machine"
                                       : fmt::format("{} has no active NVLink while its peers do", missing_gpus.front());
  finding.next_command = "nvidia-smi nvlink -s; nvidia-smi topo -m";
  return finding;
}

std::optional<Finding> from_model(const Context& context) {
  const Evidence& evidence = context.evidence;
  Finding finding;
  std::vector<std::string> missing;
  for (const auto& [a, b] : model_pairs_missing_nvlink(evidence)) {
    finding.evidence.push_back(fmt::format("GPU{}-GPU{}: NCCL path {} without a direct NVLink, while both GPUs have "
                                           "NVLinks and their other identical pairs are NVLinked",
                                           a, b, evidence.model_path_type(a, b)));
    if (missing.empty()) missing.push_back(fmt::format("GPU pair {}-{}", a, b));
    finding.gpus.push_back(a);
    finding.gpus.push_back(b);
  }
  for (const auto& gpu : evidence.model_gpus) {
    if (gpu.nvl_links > 0) continue;
    int peers = 0, peers_with = 0;
    for (const auto& other : evidence.model_gpus) {
      if (&other == &gpu || other.sm() != gpu.sm()) continue;
      ++peers;
      if (other.nvl_links > 0) ++peers_with;
    }
    if (peers == 0 || peers_with * 2 < peers) continue;
    finding.evidence.push_back(fmt::format("{} ({}): no NVL link in NCCL's model; {} of its {} identical peers "
                                           "have NVLink",
                                           gpu.label(), gpu.pci_bdf(), peers_with, peers));
    missing.push_back(gpu.label());
    if (gpu.rank()) finding.gpus.push_back(*gpu.rank());
  }
  if (finding.evidence.empty()) return std::nullopt;
  finish(finding);
  std::sort(finding.gpus.begin(), finding.gpus.end());
  finding.gpus.erase(std::unique(finding.gpus.begin(), finding.gpus.end()), finding.gpus.end());
  finding.title = fmt::format("{} has no NVLink in the topology while its peers do", missing.front());
  finding.next_command = "nvidia-smi nvlink -s   # on the machine the topology file came from";
  return finding;
}

}  // namespace

std::vector<std::pair<int, int>> model_pairs_missing_nvlink(const Evidence& evidence) {
  std::vector<std::pair<int, int>> nvlinked, without;
  for (const auto& ga : evidence.model_gpus) {
    for (const auto& gb : evidence.model_gpus) {
      if (!ga.rank() || !gb.rank() || *ga.rank() >= *gb.rank() || ga.sm() != gb.sm()) continue;
      if (ga.nvl_links == 0 || gb.nvl_links == 0) continue;
      const std::string type = evidence.model_path_type(*ga.rank(), *gb.rank());
      (type == "NVL" ? nvlinked : without).push_back({*ga.rank(), *gb.rank()});
    }
  }
  const std::size_t total = nvlinked.size() + without.size();
  if (without.empty() ||
      static_cast<double>(nvlinked.size()) < threshold(Threshold::kNvlinkPairShareForMesh) * static_cast<double>(total)) {
    return {};
  }
  std::sort(without.begin(), without.end());
  return without;
}

std::optional<Finding> rule_nvlink_missing(const Context& context) {
  const auto& gpus = context.evidence.gpus;
  const bool system_has_nvlink_facts =
      std::any_of(gpus.begin(), gpus.end(), [](const model::Gpu* g) { return g->nvlinks.has_value(); });
  return system_has_nvlink_facts ? from_system(context) : from_model(context);
}

}  // namespace linkscope::diagnose
