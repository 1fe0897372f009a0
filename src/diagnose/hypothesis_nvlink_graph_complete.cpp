// nvlink-graph-complete: which GPU pairs NVLink joins (system facts, else NCCL's model), predicting that those
// pairs copy far faster than PCIe could carry and the others no faster than PCIe.
#include <algorithm>

#include <fmt/format.h>

#include "diagnose/expectations.hpp"
#include "diagnose/hypotheses.hpp"
#include "diagnose/measured_summary.hpp"
#include "core/text.hpp"

namespace linkscope::diagnose {

std::optional<Hypothesis> make_nvlink_graph_complete(const Evidence& evidence) {
  std::vector<std::pair<int, int>> nvlinked, other;
  std::optional<double> pcie_rate;
  std::string pcie_basis;
  std::string relations;
  Hypothesis hypothesis;
  const auto ordinals = evidence.visible_ordinals();
  if (ordinals.size() >= 2) {
    for (std::size_t i = 0; i < ordinals.size(); ++i) {
      for (std::size_t j = i + 1; j < ordinals.size(); ++j) {
        const PairView* pair = evidence.pair(ordinals[i], ordinals[j]);
        const bool nv = pair != nullptr && pair->has_nvlink();
        (nv ? nvlinked : other).push_back({ordinals[i], ordinals[j]});
        if (nv && relations.find(pair->relation) == std::string::npos) {
          relations += (relations.empty() ? "" : "/") + pair->relation;
        }
      }
    }
    for (const int ordinal : ordinals) {
      const model::Gpu* gpu = evidence.gpu(ordinal);
      const auto rate = gpu != nullptr && gpu->pcie.max_gen && gpu->pcie.max_width
                            ? model::pcie_rate_gbps(*gpu->pcie.max_gen, *gpu->pcie.max_width)
                            : std::nullopt;
      if (rate && (!pcie_rate || *rate > *pcie_rate)) {
        pcie_rate = rate;
        pcie_basis = fmt::format("PCIe Gen{} x{} rate", gpu->pcie.max_gen.value_or(0), gpu->pcie.max_width.value_or(0));
      }
    }
    hypothesis.basis = "system: NVML NVLink state and GPU pair relations";
  } else if (evidence.model_gpus.size() >= 2) {
    std::vector<int> ranks;
    for (const auto& gpu : evidence.model_gpus) {
      if (gpu.rank()) ranks.push_back(*gpu.rank());
      if (gpu.pci_bw && (!pcie_rate || *gpu.pci_bw > *pcie_rate)) pcie_rate = gpu.pci_bw;
    }
    std::sort(ranks.begin(), ranks.end());
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      for (std::size_t j = i + 1; j < ranks.size(); ++j) {
        (evidence.model_path_type(ranks[i], ranks[j]) == "NVL" ? nvlinked : other).push_back({ranks[i], ranks[j]});
      }
    }
    relations = "NVL";
    pcie_basis = "PCI weight in NCCL's model";
    hypothesis.basis = "model: NCCL path types between GPUs";
  }
  if (nvlinked.empty()) return std::nullopt;
  const std::size_t total = nvlinked.size() + other.size();
  const double factor = threshold(Threshold::kNvlinkOverPcieFactor);
  if (other.empty()) {
    hypothesis.statement = total == 1 ? fmt::format("The NVLink graph is complete: the GPU pair is joined by NVLink ({})",
                                                    relations)
                                      : fmt::format("The NVLink graph is complete: all {} GPU pairs are joined by NVLink ({})",
                                                    total, relations);
  } else {
    hypothesis.statement = fmt::format("NVLink joins {} of {} GPU pairs ({}); the other {} use PCIe or the host",
                                       nvlinked.size(), total, relations, other.size());
  }
  nlohmann::json pair_list = nlohmann::json::array();
  for (const auto& [a, b] : nvlinked) pair_list.push_back({a, b});
  hypothesis.numbers = {{"pairs", total}, {"nvlink_pairs", nvlinked.size()}, {"nvlink_pair_list", pair_list}};
  if (pcie_rate) {
    hypothesis.numbers["pcie_rate_gbps"] = *pcie_rate;
    hypothesis.numbers["nvlink_min_gbps"] = factor * *pcie_rate;
    hypothesis.prediction = fmt::format(
        "every directed NVLink pair copies faster than {} at >= {} ({} the {} of {}), which PCIe cannot carry",
        format_gbps(factor * *pcie_rate), format_bytes(static_cast<std::uint64_t>(threshold(Threshold::kBandwidthCompareMinBytes))),
        format_factor(factor), pcie_basis, format_gbps(*pcie_rate));
  } else {
    hypothesis.prediction = "every directed NVLink pair has peer access and copies at NVLink speed";
  }
  hypothesis.needs = "measurements.p2p";
  return hypothesis;
}

void judge_nvlink_graph_complete(const Context& context, Hypothesis& hypothesis) {
  const Evidence& evidence = context.evidence;
  if (!evidence.p2p_measured) return set_untested(hypothesis, "not measured in this run: measurements.p2p is absent");
  const auto min_bytes = static_cast<std::uint64_t>(threshold(Threshold::kBandwidthCompareMinBytes));
  const auto best = best_directed_copies(evidence, min_bytes);
  std::optional<double> floor;
  if (const auto it = hypothesis.numbers.find("nvlink_min_gbps"); it != hypothesis.numbers.end() && it->is_number()) {
    floor = it->get<double>();
  }
  std::vector<double> values;
  std::vector<std::string> failures;
  std::string slowest;
  double slowest_value = 0;
  std::uint64_t size = 0;
  for (const auto& pair : hypothesis.numbers.value("nvlink_pair_list", nlohmann::json::array())) {
    const int a = pair.at(0).get<int>(), b = pair.at(1).get<int>();
    for (const auto& key : {std::make_pair(a, b), std::make_pair(b, a)}) {
      const auto it = best.find(key);
      if (it == best.end()) continue;
      const model::CopyPoint& point = *it->second;
      if (!copy_ok(point)) {
        failures.push_back(fmt::format("GPU{}->GPU{} {}{}", key.first, key.second, model::to_string(point.status),
                                       point.reason.empty() ? "" : " (" + point.reason + ")"));
        continue;
      }
      const double gbps = copy_gbps(point);
      values.push_back(gbps);
      size = std::max(size, point.bytes);
      if (slowest.empty() || gbps < slowest_value) {
        slowest_value = gbps;
        slowest = fmt::format("GPU{}->GPU{}", key.first, key.second);
      }
      if (floor && gbps <= *floor) {
        failures.push_back(fmt::format("GPU{}->GPU{} only {}", key.first, key.second, format_gbps(gbps)));
      }
    }
  }
  if (values.empty() && failures.empty()) {
    hypothesis.verdict = Verdict::kInconclusive;
    hypothesis.evidence = fmt::format("no NVLink pair was copied at >= {}", format_bytes(min_bytes));
    return;
  }
  hypothesis.numbers["measured_directed_pairs"] = values.size();
  if (!values.empty()) {
    hypothesis.numbers["measured_min_gbps"] = slowest_value;
    hypothesis.numbers["measured_median_gbps"] = median_of(values);
  }
  std::string summary = values.empty() ? std::string()
                                       : fmt::format("{} directed NVLink pair(s) at {}: slowest {} {}, median {}",
                                                     values.size(), format_bytes(size), slowest,
                                                     format_gbps(slowest_value), format_gbps(median_of(values)));
  if (!failures.empty()) {
    std::string text;
    for (const auto& f : failures) text += (text.empty() ? "" : "; ") + f;
    hypothesis.verdict = Verdict::kRefuted;
    hypothesis.evidence = (summary.empty() ? "" : summary + "; ") + "not at NVLink speed: " + text +
                          (floor ? fmt::format(" (floor {})", format_gbps(*floor)) : "");
    return;
  }
  if (!floor) {
    hypothesis.verdict = Verdict::kInconclusive;
    hypothesis.evidence = summary + "; no PCIe rate known to compare with";
    return;
  }
  hypothesis.verdict = Verdict::kConfirmed;
  hypothesis.evidence = summary + fmt::format("; all above {}", format_gbps(*floor));
}

}  // namespace linkscope::diagnose
