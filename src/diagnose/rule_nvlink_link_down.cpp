// nvlink-link-down: a GPU with fewer active NVLinks, slower links or an older link version than its identical
// peers (system), or a smaller NVLink weight than its peers in NCCL's model (topology file alone).
#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "diagnose/expectations.hpp"
#include "diagnose/rules.hpp"
#include "model/link_rate.hpp"

namespace linkscope::diagnose {

namespace {

// NCCL's NVLink weight per link by SM version (nccl-topology-spec.md §2.2), to turn a weight back into links.
double nccl_weight_per_link(std::optional<int> sm) {
  const int value = sm.value_or(0);
  if (value >= 100) return 40.1;
  if (value >= 90) return 20.6;
  if (value == 86) return 12.0;
  if (value >= 60 && value < 70) return 18.0;
  return 20.0;
}

std::vector<const model::Gpu*> peers_of(const Evidence& evidence, const model::Gpu& gpu) {
  std::vector<const model::Gpu*> peers;
  for (const auto* other : evidence.gpus) {
    if (other != &gpu && other->nvlinks.has_value() && other->active_nvlinks() > 0 && gpu.same_kind(*other)) {
      peers.push_back(other);
    }
  }
  return peers;
}

std::optional<Finding> from_system(const Context& context) {
  const Evidence& evidence = context.evidence;
  const double tolerance = threshold(Threshold::kLinkSpeedTolerance);
  Finding finding;
  finding.id = "nvlink-link-down";
  Severity severity = Severity::kInfo;
  std::string first;
  for (const auto* gpu_facts : evidence.gpus) {
    const model::Gpu& gpu = *gpu_facts;
    if (!gpu.nvlinks.has_value() || gpu.active_nvlinks() == 0) continue;  // no NVLink at all: nvlink-missing
    const auto peers = peers_of(evidence, gpu);
    bool flagged = false;
    if (!peers.empty()) {
      std::vector<double> counts, speeds, versions;
      for (const auto* peer : peers) {
        counts.push_back(peer->active_nvlinks());
        if (auto speed = model::typical_nvlink_speed(*peer)) speeds.push_back(*speed);
        for (const auto& link : peer->nvlink_list()) {
          if (link.active.value_or(false) && link.version) versions.push_back(*link.version);
        }
      }
      counts.push_back(gpu.active_nvlinks());  // the GPU votes too: with two GPUs the larger count wins the tie
      const auto reference_count = peer_reference(counts, 0.0);
      if (reference_count && gpu.active_nvlinks() < *reference_count) {
        const int inactive = static_cast<int>(gpu.nvlink_list().size()) - gpu.active_nvlinks();
        finding.evidence.push_back(fmt::format("{} ({}): {} active NVLinks, identical peers have {:.0f}{}", gpu.label(),
                                               gpu.pci_bdf, gpu.active_nvlinks(), *reference_count,
                                               inactive > 0 ? fmt::format(" ({} listed link(s) inactive)", inactive)
                                                            : std::string()));
        if (const auto rate = model::active_nvlink_rate(gpu)) {
          const auto speed = model::typical_nvlink_speed(gpu).value_or(0.0);
          finding.evidence.push_back(fmt::format("{} link rate {:.1f} GB/s instead of {:.1f} GB/s", gpu.label(), *rate,
                                                 *reference_count * speed));
        }
        severity = Severity::kError;
        flagged = true;
      }
      const auto speed = model::typical_nvlink_speed(gpu);
      const auto reference_speed = peer_reference(speeds, tolerance);
      if (speed && reference_speed && *speed < *reference_speed * (1.0 - tolerance)) {
        finding.evidence.push_back(fmt::format("{}: NVLinks run at {:.3f} GB/s each, identical peers at {:.3f}",
                                               gpu.label(), *speed, *reference_speed));
        severity = std::max(severity, Severity::kWarning);
        flagged = true;
      }
      std::vector<double> own_versions;
      for (const auto& link : gpu.nvlink_list()) {
        if (link.active.value_or(false) && link.version) own_versions.push_back(*link.version);
      }
      const auto version = peer_reference(own_versions, 0.0);
      const auto reference_version = peer_reference(versions, 0.0);
      if (version && reference_version && *version < *reference_version) {
        finding.evidence.push_back(fmt::format("{}: NVLink version {:.0f}, identical peers {:.0f}", gpu.label(),
                                               *version, *reference_version));
        severity = std::max(severity, Severity::kWarning);
        flagged = true;
      }
    }
    long long recoveries = 0;
    for (const auto& link : gpu.nvlink_list()) recoveries += link.errors.recovery.value_or(0);
    if (recoveries > 0) {
      finding.evidence.push_back(fmt::format("{}: {} NVLink recovery error(s) (a link went down and retrained)",
                                             gpu.label(), recoveries));
      severity = std::max(severity, Severity::kWarning);
      flagged = true;
    }
    if (flagged) {
      if (first.empty()) first = gpu.label();
      if (gpu.cuda_ordinal) finding.gpus.push_back(*gpu.cuda_ordinal);
    }
  }
  if (finding.evidence.empty()) return std::nullopt;
  finding.severity = severity;
  finding.title = fmt::format("{} has degraded NVLinks compared with its identical peers", first);
  finding.explanation =
      "Every GPU of one kind on a board has the same NVLinks. Fewer or slower links lower the bandwidth of every "
      "pair this GPU is in, and NCCL rings through it run at its speed.";
  finding.cause = "a link that failed to train or went down (cable/board/NVSwitch fault); recovery errors say a "
                  "link flapped";
  finding.next_command = "nvidia-smi nvlink -s; nvidia-smi nvlink -e";
  return finding;
}

std::optional<Finding> from_model(const Context& context) {
  const Evidence& evidence = context.evidence;
  const double tolerance = threshold(Threshold::kLinkSpeedTolerance);
  Finding finding;
  finding.id = "nvlink-link-down";
  std::string first;
  // GPUs that lost a whole direct link to one peer are reported once, as that pair's nvlink-missing.
  std::set<int> in_missing_pairs;
  for (const auto& [a, b] : model_pairs_missing_nvlink(evidence)) {
    in_missing_pairs.insert(a);
    in_missing_pairs.insert(b);
  }
  for (const auto& gpu : evidence.model_gpus) {
    if (gpu.nvl_links == 0 || (gpu.rank() && in_missing_pairs.count(*gpu.rank()) != 0)) continue;
    std::vector<double> weights{gpu.nvl_bw};
    for (const auto& other : evidence.model_gpus) {
      if (&other != &gpu && other.sm() == gpu.sm() && other.nvl_links > 0) weights.push_back(other.nvl_bw);
    }
    if (weights.size() < 2) continue;
    const auto reference = peer_reference(weights, tolerance);
    if (!reference || gpu.nvl_bw >= *reference * (1.0 - tolerance)) continue;
    const double per_link = nccl_weight_per_link(gpu.sm());
    const double links = gpu.nvlink_count() ? *gpu.nvlink_count() : std::round(gpu.nvl_bw / per_link);
    finding.evidence.push_back(fmt::format("{} ({}): {:.0f} NVLinks (NCCL weight {:.1f} = links x {:.1f}), identical "
                                           "peers {:.0f} (weight {:.1f})",
                                           gpu.label(), gpu.pci_bdf(), links, gpu.nvl_bw, per_link,
                                           std::round(*reference / per_link), *reference));
    if (first.empty()) first = gpu.label();
    if (gpu.rank()) finding.gpus.push_back(*gpu.rank());
  }
  if (finding.evidence.empty()) return std::nullopt;
  finding.severity = Severity::kError;
  finding.title = fmt::format("{} has fewer NVLinks than its identical peers in the topology", first);
  finding.explanation =
      "NCCL's weight for a GPU's NVLink is its link count times a per-link weight; a smaller weight than its peers "
      "means links are missing, and every path through this GPU is slower.";
  finding.cause = "NVLinks missing from the topology (down or not trained when the file was captured)";
  finding.next_command = "nvidia-smi nvlink -s   # on the machine the topology file came from";
  return finding;
}

}  // namespace

std::optional<Finding> rule_nvlink_link_down(const Context& context) {
  const auto& gpus = context.evidence.gpus;
  const bool system_has_nvlink_facts =
      std::any_of(gpus.begin(), gpus.end(), [](const model::Gpu* g) { return g->nvlinks.has_value(); });
  return system_has_nvlink_facts ? from_system(context) : from_model(context);
}

}  // namespace linkscope::diagnose
