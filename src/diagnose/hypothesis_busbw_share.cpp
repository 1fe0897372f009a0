// busbw-reaches-link-share: NCCL all_reduce at large sizes reaches about 70% of the slowest GPU pair's link
// status rate (busbw, nccl-tests' definition).
#include <fmt/format.h>

#include "diagnose/expectations.hpp"
#include "diagnose/hypotheses.hpp"
#include "diagnose/measured_summary.hpp"
#include "core/text.hpp"

namespace linkscope::diagnose {

std::optional<Hypothesis> make_busbw_share(const Evidence& evidence) {
  if (evidence.visible_ordinals().size() < 2) return std::nullopt;
  const auto rate = evidence.slowest_link_rate();
  if (!rate) return std::nullopt;
  const double share = threshold(Threshold::kBusbwShareOfLinkRate);
  const double tolerance = threshold(Threshold::kHypothesisTolerance);
  const double predicted = share * rate->gbps * (1.0 - tolerance);
  const auto min_bytes = static_cast<std::uint64_t>(threshold(Threshold::kBusbwHypothesisMinBytes));
  Hypothesis hypothesis;
  hypothesis.statement = fmt::format("NCCL all_reduce reaches about {} of the link status rate at large sizes",
                                     format_percent(share));
  hypothesis.prediction = fmt::format("all_reduce busbw at the largest size >= {} is >= {} ({} x {} = {}, less {})",
                                      format_bytes(min_bytes), format_gbps(predicted), format_percent(share),
                                      rate->basis, format_gbps(rate->gbps), format_percent(tolerance));
  hypothesis.basis = "system: slowest GPU pair link rate (NVLink count x per-link rate, or PCIe)";
  hypothesis.needs = "measurements.collectives (all_reduce)";
  hypothesis.numbers = {{"op", "all_reduce"},          {"rate_gbps", rate->gbps},   {"rate_basis", rate->basis},
                        {"expected_share", share},     {"tolerance", tolerance},    {"predicted_min_gbps", predicted},
                        {"min_bytes", min_bytes}};
  return hypothesis;
}

void judge_busbw_share(const Context& context, Hypothesis& hypothesis) {
  const Evidence& evidence = context.evidence;
  if (!evidence.collectives_measured) {
    return set_untested(hypothesis, "not measured in this run: measurements.collectives is absent");
  }
  const std::string op = hypothesis.numbers.value("op", std::string("all_reduce"));
  const auto min_bytes = hypothesis.numbers.value(
      "min_bytes", static_cast<std::uint64_t>(threshold(Threshold::kBusbwHypothesisMinBytes)));
  std::optional<CollectiveRef> chosen;
  for (const auto& point : largest_collective_points(evidence, min_bytes)) {
    if (point.op() == op) chosen = point;
  }
  if (!chosen) {
    hypothesis.verdict = Verdict::kInconclusive;
    hypothesis.evidence = fmt::format("no {} measured ok at >= {}", op, format_bytes(min_bytes));
    return;
  }
  const double rate = hypothesis.numbers.value("rate_gbps", 0.0);
  const double predicted = hypothesis.numbers.value("predicted_min_gbps", 0.0);
  const double measured = chosen->busbw();
  hypothesis.numbers["measured_gbps"] = measured;
  hypothesis.numbers["measured_bytes"] = chosen->point->bytes;
  hypothesis.verdict = measured >= predicted ? Verdict::kConfirmed : Verdict::kRefuted;
  hypothesis.evidence = fmt::format("{} busbw {} at {} = {} of {} (predicted >= {})", op, format_gbps(measured),
                                    format_bytes(chosen->point->bytes), rate > 0 ? format_percent(measured / rate) : "?",
                                    format_gbps(rate), format_gbps(predicted));
}

}  // namespace linkscope::diagnose
