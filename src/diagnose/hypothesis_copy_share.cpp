// copy-reaches-link-share: a copy-engine peer copy at the bandwidth plateau reaches about 80% of its link status
// rate (NVLink count x per-link rate from NVML, or the PCIe rate).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "diagnose/expectations.hpp"
#include "diagnose/hypotheses.hpp"
#include "diagnose/measured_summary.hpp"
#include "core/text.hpp"

namespace linkscope::diagnose {

std::optional<Hypothesis> make_copy_share(const Evidence& evidence) {
  const auto ordinals = evidence.visible_ordinals();
  std::map<std::string, LinkRate> slowest_by_type;
  for (std::size_t i = 0; i < ordinals.size(); ++i) {
    for (std::size_t j = i + 1; j < ordinals.size(); ++j) {
      const auto rate = evidence.link_rate(ordinals[i], ordinals[j]);
      if (!rate) continue;
      const std::string type = evidence.pair_type(ordinals[i], ordinals[j]);
      auto it = slowest_by_type.find(type);
      if (it == slowest_by_type.end() || rate->gbps < it->second.gbps) slowest_by_type[type] = *rate;
    }
  }
  if (slowest_by_type.empty()) return std::nullopt;
  const double share = threshold(Threshold::kCeShareOfLinkRate);
  const double tolerance = threshold(Threshold::kHypothesisTolerance);
  Hypothesis hypothesis;
  hypothesis.numbers = {{"expected_share", share}, {"tolerance", tolerance}, {"by_type", nlohmann::json::object()}};
  std::string predictions;
  for (const auto& [type, rate] : slowest_by_type) {
    const double predicted = share * rate.gbps * (1.0 - tolerance);
    hypothesis.numbers["by_type"][type] = {{"rate_gbps", rate.gbps}, {"rate_basis", rate.basis},
                                           {"predicted_min_gbps", predicted}};
    predictions += fmt::format("{}{} pairs >= {} ({} x {} = {}, less {})", predictions.empty() ? "" : "; ", type,
                               format_gbps(predicted), format_percent(share), rate.basis, format_gbps(rate.gbps),
                               format_percent(tolerance));
  }
  hypothesis.statement = fmt::format("A copy-engine peer copy reaches about {} of the link status rate",
                                     format_percent(share));
  hypothesis.prediction = fmt::format("CE copies at >= {}: {}",
                                      format_bytes(static_cast<std::uint64_t>(threshold(Threshold::kCopyPlateauMinBytes))),
                                      predictions);
  hypothesis.basis = "system: NVLink count x per-link rate (NVML), PCIe generation x width";
  hypothesis.needs = "measurements.p2p (method ce)";
  return hypothesis;
}

void judge_copy_share(const Context& context, Hypothesis& hypothesis) {
  const Evidence& evidence = context.evidence;
  if (!evidence.p2p_measured) return set_untested(hypothesis, "not measured in this run: measurements.p2p is absent");
  const auto& by_type = hypothesis.numbers.value("by_type", nlohmann::json::object());
  // Worst CE copy per pair type.
  std::map<std::string, CopyJudgement> worst;
  for (const auto& judgement : plateau_copies(evidence)) {
    if (judgement.point->method != "ce") continue;
    const std::string type = evidence.pair_type(judgement.point->src, judgement.point->dst);
    auto it = worst.find(type);
    if (it == worst.end() || copy_gbps(*judgement.point) < copy_gbps(*it->second.point)) {
      worst[type] = judgement;
    }
  }
  if (worst.empty()) {
    hypothesis.verdict = Verdict::kInconclusive;
    hypothesis.evidence = fmt::format("no CE copy at >= {} with a known link rate",
                                      format_bytes(static_cast<std::uint64_t>(threshold(Threshold::kCopyPlateauMinBytes))));
    return;
  }
  bool all_hold = true;
  std::string text;
  for (const auto& [type, judgement] : worst) {
    double predicted = judgement.expected_share * judgement.rate.gbps *
                       (1.0 - hypothesis.numbers.value("tolerance", threshold(Threshold::kHypothesisTolerance)));
    if (by_type.contains(type) && by_type[type].contains("predicted_min_gbps")) {
      predicted = by_type[type]["predicted_min_gbps"].get<double>();
    }
    const double measured = copy_gbps(*judgement.point);
    const bool holds = measured >= predicted;
    all_hold = all_hold && holds;
    text += fmt::format("{}{}: slowest {} (predicted >= {})", text.empty() ? "" : "; ", type, copy_line(judgement),
                        format_gbps(predicted));
    hypothesis.numbers["measured"][type] = {{"min_gbps", measured}, {"share", judgement.share}};
  }
  hypothesis.verdict = all_hold ? Verdict::kConfirmed : Verdict::kRefuted;
  hypothesis.evidence = text;
}

}  // namespace linkscope::diagnose
