// disjoint-add-shared-contend: concurrent copies on disjoint link directions add up (each GPU's links carry each
// direction once), while copies that share a source or destination GPU contend for that GPU's links.
#include <fmt/format.h>

#include "diagnose/expectations.hpp"
#include "diagnose/hypotheses.hpp"
#include "core/text.hpp"

namespace linkscope::diagnose {

std::optional<Hypothesis> make_patterns_scale(const Evidence& evidence) {
  if (evidence.visible_ordinals().size() < 2 && evidence.model_gpus.size() < 2) return std::nullopt;
  const double disjoint = threshold(Threshold::kDisjointScalingMin);
  const double contended = threshold(Threshold::kContendedScalingMax);
  Hypothesis hypothesis;
  hypothesis.statement = "Copies on disjoint link directions add up; copies that share a source or destination GPU "
                         "contend for that GPU's links";
  hypothesis.prediction = fmt::format("patterns where no GPU sends or receives twice keep >= {} of the sum of their "
                                      "copies alone; patterns sharing an endpoint reach <= {}",
                                      format_number(disjoint), format_number(contended));
  hypothesis.basis = "system: each GPU's NVLink/PCIe ports are full duplex and bound its egress and ingress";
  hypothesis.needs = "measurements.patterns";
  hypothesis.numbers = {{"disjoint_min_scaling", disjoint}, {"shared_max_scaling", contended}};
  return hypothesis;
}

void judge_patterns_scale(const Context& context, Hypothesis& hypothesis) {
  const Evidence& evidence = context.evidence;
  if (!evidence.patterns_measured) return set_untested(hypothesis, "not measured in this run: measurements.patterns is absent");
  const double disjoint_min = hypothesis.numbers.value("disjoint_min_scaling", threshold(Threshold::kDisjointScalingMin));
  const double shared_max = hypothesis.numbers.value("shared_max_scaling", threshold(Threshold::kContendedScalingMax));
  int disjoint = 0, shared = 0, violations = 0;
  std::string text;
  for (const auto& pattern : evidence.patterns()) {
    if (pattern.status != model::PointStatus::kOk || !pattern.scaling || pattern.edges.size() < 2) continue;
    const bool disjoint_edges = is_disjoint(pattern);
    const bool holds = disjoint_edges ? *pattern.scaling >= disjoint_min : *pattern.scaling <= shared_max;
    (disjoint_edges ? disjoint : shared) += 1;
    if (!holds) ++violations;
    text += fmt::format("{}{} ({}, {} copies): {}{} = {} of the copies alone{}", text.empty() ? "" : "; ", pattern.name,
                        disjoint_edges ? "disjoint" : "shared endpoint", pattern.edges.size(),
                        pattern.aggregate_gbps ? format_gbps(pattern.aggregate_gbps->median) : std::string("?"),
                        pattern.sum_alone_gbps ? " of " + format_gbps(*pattern.sum_alone_gbps) : std::string(),
                        format_number(*pattern.scaling), holds ? "" : " (against the prediction)");
  }
  if (disjoint + shared == 0) {
    hypothesis.verdict = Verdict::kInconclusive;
    hypothesis.evidence = "no pattern with two or more concurrent copies measured ok";
    return;
  }
  if (shared == 0) text += "; no shared-endpoint pattern measured (needs 3 or more GPUs)";
  if (disjoint == 0) text += "; no disjoint pattern measured";
  hypothesis.numbers["disjoint_patterns"] = disjoint;
  hypothesis.numbers["shared_patterns"] = shared;
  hypothesis.verdict = violations > 0 ? Verdict::kRefuted : Verdict::kConfirmed;
  hypothesis.evidence = text;
}

}  // namespace linkscope::diagnose
