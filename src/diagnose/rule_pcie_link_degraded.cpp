// pcie-link-degraded: a GPU's PCIe link below its own maximum (width; generation under load) or below its
// identical peers (system), or a smaller PCI link weight than its identical peers in NCCL's model.
#include <algorithm>

#include <fmt/format.h>

#include "diagnose/expectations.hpp"
#include "diagnose/rules.hpp"
#include "model/link_rate.hpp"

namespace linkscope::diagnose {

namespace {

bool is_idle(const model::Gpu& gpu) {
  const auto reasons = throttle_reasons(gpu);
  return std::find(reasons.begin(), reasons.end(), "gpu_idle") != reasons.end();
}

std::optional<double> rate_of(std::optional<int> gen, std::optional<int> width) {
  if (!gen || !width) return std::nullopt;
  return model::pcie_rate_gbps(*gen, *width);
}

std::string link_text(std::optional<int> gen, std::optional<int> width) {
  return fmt::format("Gen{} x{}", gen ? std::to_string(*gen) : "?", width ? std::to_string(*width) : "?");
}

std::optional<Finding> from_system(const Context& context) {
  const Evidence& evidence = context.evidence;
  Finding finding;
  std::string first;
  for (const auto* gpu_facts : evidence.gpus) {
    const model::Gpu& gpu = *gpu_facts;
    const auto& pcie = gpu.pcie;
    std::vector<double> peer_current_gen, peer_max_gen, peer_width;
    for (const auto* other : evidence.gpus) {
      if (other == &gpu || !gpu.same_kind(*other)) continue;
      if (other->pcie.current_gen) peer_current_gen.push_back(*other->pcie.current_gen);
      if (other->pcie.max_gen) peer_max_gen.push_back(*other->pcie.max_gen);
      if (other->pcie.current_width) peer_width.push_back(*other->pcie.current_width);
    }
    std::vector<std::string> problems;
    if (pcie.current_width && pcie.max_width && *pcie.current_width < *pcie.max_width) {
      problems.push_back(fmt::format("width x{} of x{}", *pcie.current_width, *pcie.max_width));
    } else if (const auto ref = peer_reference(peer_width, 0.0); pcie.current_width && ref && *pcie.current_width < *ref) {
      problems.push_back(fmt::format("width x{} while identical peers run x{:.0f}", *pcie.current_width, *ref));
    }
    // GPUs lower their PCIe generation when idle to save power, so a lower current generation counts only under
    // load, or when identical peers in the same state run faster.
    const auto peer_gen = peer_reference(peer_current_gen, 0.0);
    if (pcie.current_gen && peer_gen && *pcie.current_gen < *peer_gen) {
      problems.push_back(fmt::format("Gen{} while identical peers run Gen{:.0f}", *pcie.current_gen, *peer_gen));
    } else if (pcie.current_gen && pcie.max_gen && *pcie.current_gen < *pcie.max_gen && !is_idle(gpu) &&
               gpu.throttle_reasons.has_value()) {
      problems.push_back(fmt::format("Gen{} under load, maximum Gen{}", *pcie.current_gen, *pcie.max_gen));
    }
    if (const auto ref = peer_reference(peer_max_gen, 0.0); pcie.max_gen && ref && *pcie.max_gen < *ref) {
      problems.push_back(fmt::format("maximum Gen{} while identical peers reach Gen{:.0f} (slot or riser)",
                                     *pcie.max_gen, *ref));
    }
    if (problems.empty()) continue;
    std::string text;
    for (const auto& p : problems) text += (text.empty() ? "" : "; ") + p;
    const auto current_rate = rate_of(pcie.current_gen, pcie.current_width);
    const auto max_rate = rate_of(pcie.max_gen, pcie.max_width);
    finding.evidence.push_back(fmt::format("{} ({}): {} [now {}{}; maximum {}]", gpu.label(), gpu.pci_bdf, text,
                                           link_text(pcie.current_gen, pcie.current_width),
                                           current_rate ? fmt::format(" = {:.1f} GB/s", *current_rate) : "",
                                           link_text(pcie.max_gen, pcie.max_width) +
                                               (max_rate ? fmt::format(" = {:.1f} GB/s", *max_rate) : "")));
    if (first.empty()) first = gpu.label();
    if (gpu.cuda_ordinal) finding.gpus.push_back(*gpu.cuda_ordinal);
  }
  if (finding.evidence.empty()) return std::nullopt;
  finding.title = fmt::format("{} PCIe link runs below its capability", first);
  finding.next_command = "nvidia-smi --query-gpu=pci.bus_id,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current,"
                         "pcie.link.width.max --format=csv";
  return finding;
}

// "Gen5 x16, " from the model node's PCIe link, "" when the model records none.
std::string model_pcie_link(const ModelGpu& gpu) {
  const auto& pcie = gpu.node->pcie;
  if (!pcie || !pcie->gen) return "";
  return fmt::format("Gen{} x{}, ", *pcie->gen, pcie->width);
}

std::optional<Finding> from_model(const Context& context) {
  const Evidence& evidence = context.evidence;
  const double tolerance = threshold(Threshold::kLinkSpeedTolerance);
  Finding finding;
  std::string first;
  for (const auto& gpu : evidence.model_gpus) {
    if (!gpu.pci_bw) continue;
    std::vector<double> weights{*gpu.pci_bw};
    for (const auto& other : evidence.model_gpus) {
      if (&other != &gpu && other.sm() == gpu.sm() && other.pci_bw) weights.push_back(*other.pci_bw);
    }
    if (weights.size() < 2) continue;
    const auto reference = peer_reference(weights, tolerance);
    if (!reference || *gpu.pci_bw >= *reference * (1.0 - tolerance)) continue;
    // NCCL's PCI weight is width x generation code / 80 (spec §2.3): 48.0 = Gen5 x16, 24.0 = Gen4 x16 or Gen5 x8.
    const std::string link = model_pcie_link(gpu);
    std::string peers_link;
    for (const auto& other : evidence.model_gpus) {
      if (&other != &gpu && other.sm() == gpu.sm() && other.pci_bw && *other.pci_bw == *reference &&
          !model_pcie_link(other).empty()) {
        peers_link = model_pcie_link(other);
        break;
      }
    }
    finding.evidence.push_back(fmt::format("{} ({}): PCIe link {}NCCL weight {:.1f}; identical peers {}weight {:.1f}",
                                           gpu.label(), gpu.pci_bdf(), link, *gpu.pci_bw, peers_link, *reference));
    if (first.empty()) first = gpu.label();
    if (gpu.rank()) finding.gpus.push_back(*gpu.rank());
  }
  if (finding.evidence.empty()) return std::nullopt;
  finding.title = fmt::format("{} has a slower PCIe link than its identical peers in the topology", first);
  finding.next_command = "lspci -vv -s <bdf> | grep -e LnkCap -e LnkSta   # on the machine the file came from";
  return finding;
}

}  // namespace

std::optional<Finding> rule_pcie_link_degraded(const Context& context) {
  const auto& gpus = context.evidence.gpus;
  const bool system_has_pcie_facts = std::any_of(gpus.begin(), gpus.end(), [](const model::Gpu* g) {
    return g->pcie.current_gen.has_value() || g->pcie.current_width.has_value();
  });
  auto finding = system_has_pcie_facts ? from_system(context) : from_model(context);
  if (!finding) return finding;
  finding->id = "pcie-link-degraded";
  finding->severity = Severity::kWarning;
  finding->explanation =
      "Host-to-device copies, P2P over PCIe, GPUDirect RDMA to NICs and NCCL traffic that leaves the GPU through "
      "PCIe all run at the link's width x generation rate.";
  finding->cause = "link trained below its maximum: a slot or riser of a lower generation, a dirty or loose "
                   "connection, or BIOS PCIe settings";
  return finding;
}

}  // namespace linkscope::diagnose
