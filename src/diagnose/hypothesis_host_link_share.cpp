// host-link-reaches-share: every GPU's host copies (pinned host memory <-> GPU) at the bandwidth plateau reach a
// known share of its host link rate (PCIe generation x width, or C2C), one way and both ways at once, CE and SM.
#include <fmt/format.h>

#include "core/text.hpp"
#include "diagnose/expectations.hpp"
#include "diagnose/host_link.hpp"
#include "diagnose/hypotheses.hpp"
#include "model/host_copy_kind.hpp"

namespace linkscope::diagnose {

namespace {

// The prediction's key for one kind of host copy: "ce", "sm", "ce_bidirectional", "sm_bidirectional".
std::string kind_key(const std::string& method, bool bidirectional) {
  return method + (bidirectional ? "_bidirectional" : "");
}

}  // namespace

std::optional<Hypothesis> make_host_link_share(const Evidence& evidence) {
  const double tolerance = threshold(Threshold::kHypothesisTolerance);
  Hypothesis hypothesis;
  hypothesis.numbers = {{"tolerance", tolerance}, {"by_gpu", nlohmann::json::object()}};
  std::string predictions;
  for (int ordinal : evidence.visible_ordinals()) {
    const model::Gpu* gpu = evidence.gpu(ordinal);
    const auto rate = gpu != nullptr ? model::host_link_rate(*gpu) : std::nullopt;
    if (!rate || rate->gbps <= 0) continue;
    nlohmann::json entry = {{"rate_gbps", rate->gbps}, {"rate_basis", rate->basis},
                            {"link", negotiated_link_text(*gpu)}, {"predicted_min_gbps", nlohmann::json::object()}};
    for (const char* method : {"ce", "sm"}) {
      for (const bool both : {false, true}) {
        entry["predicted_min_gbps"][kind_key(method, both)] =
            host_shares(rate->kind, method, both).expected * rate->gbps * (1.0 - tolerance);
      }
    }
    const auto& min = entry["predicted_min_gbps"];
    predictions += fmt::format("{}GPU{} ({} {}): one way CE >= {}, SM >= {}; both at once CE >= {}, SM >= {}",
                               predictions.empty() ? "" : "; ", ordinal, rate->basis, format_gbps(rate->gbps),
                               format_gbps(min["ce"]), format_gbps(min["sm"]), format_gbps(min["ce_bidirectional"]),
                               format_gbps(min["sm_bidirectional"]));
    hypothesis.numbers["by_gpu"][std::to_string(ordinal)] = entry;
  }
  if (hypothesis.numbers["by_gpu"].empty()) return std::nullopt;
  hypothesis.statement = fmt::format(
      "Host copies reach about {} (CE) / {} (SM) of each GPU's PCIe rate, {} over C2C; each direction keeps {} of "
      "that while both run",
      format_percent(threshold(Threshold::kHostCeShareOfLinkRate)),
      format_percent(threshold(Threshold::kHostSmShareOfLinkRate)),
      format_percent(threshold(Threshold::kC2cShareOfLinkRate)),
      format_percent(threshold(Threshold::kHostBidirectionalFactor)));
  hypothesis.prediction = fmt::format(
      "host copies at >= {}: {}", format_bytes(static_cast<std::uint64_t>(threshold(Threshold::kCopyPlateauMinBytes))),
      predictions);
  hypothesis.basis = "system: PCIe generation x width (NVML), C2C links x per-link rate";
  hypothesis.needs = "measurements.p2p.host";
  return hypothesis;
}

void judge_host_link_share(const Context& context, Hypothesis& hypothesis) {
  const Evidence& evidence = context.evidence;
  const auto& p2p = evidence.run.measurements.p2p;
  if (!p2p || p2p->host.empty()) {
    return set_untested(hypothesis, "not measured in this run: measurements.p2p.host is absent");
  }
  const auto judgements = plateau_host_copies(evidence);
  if (judgements.empty()) {
    hypothesis.verdict = Verdict::kInconclusive;
    hypothesis.evidence = fmt::format(
        "no host copy at >= {} measured ok on a GPU with a known host link rate",
        format_bytes(static_cast<std::uint64_t>(threshold(Threshold::kCopyPlateauMinBytes))));
    return;
  }
  const auto& by_gpu = hypothesis.numbers.value("by_gpu", nlohmann::json::object());
  const double tolerance = hypothesis.numbers.value("tolerance", threshold(Threshold::kHypothesisTolerance));
  bool all_hold = true;
  std::string text;
  nlohmann::json measured = nlohmann::json::array();
  for (const auto& judgement : judgements) {
    const auto& p = *judgement.point;
    // The prediction made before measuring, else (a run saved without it) the same rule now.
    double predicted = judgement.shares.expected * judgement.rate.gbps * (1.0 - tolerance);
    const std::string gpu_key = std::to_string(p.gpu);
    const std::string key = kind_key(model::host_copy_method(p), model::host_copy_bidirectional(p));
    const auto made = by_gpu.value(gpu_key, nlohmann::json::object()).value("predicted_min_gbps", nlohmann::json::object());
    if (made.contains(key) && made[key].is_number()) predicted = made[key].get<double>();
    const bool holds = p.bandwidth_gbps->median >= predicted;
    all_hold = all_hold && holds;
    text += fmt::format("{}{} (predicted >= {}{})", text.empty() ? "" : "; ", host_copy_line(judgement),
                        format_gbps(predicted), holds ? "" : ": BELOW");
    measured.push_back({{"gpu", p.gpu}, {"direction", p.direction}, {"method", model::host_copy_method(p)},
                        {"bidirectional", model::host_copy_bidirectional(p)}, {"bytes", p.bytes},
                        {"gbps", p.bandwidth_gbps->median}, {"share", judgement.share},
                        {"predicted_min_gbps", predicted}});
  }
  for (const auto* latency : host_latency_points(evidence)) {
    text += fmt::format("; GPU{} host latency {:.0f} ns ({})", host_latency_gpu(*latency), latency->latency_ns->median,
                        latency->method);
  }
  hypothesis.numbers["measured"] = measured;
  hypothesis.verdict = all_hold ? Verdict::kConfirmed : Verdict::kRefuted;
  hypothesis.evidence = text;
}

}  // namespace linkscope::diagnose
