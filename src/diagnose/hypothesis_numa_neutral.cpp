// numa-binding-neutral: a GPU-to-GPU copy does not touch host memory, so the CPU NUMA node of the thread that
// issues it does not change its bandwidth. Made only on machines with more than one NUMA node.
#include <fmt/format.h>

#include "diagnose/expectations.hpp"
#include "diagnose/hypotheses.hpp"
#include "core/text.hpp"

namespace linkscope::diagnose {

std::optional<Hypothesis> make_numa_neutral(const Evidence& evidence) {
  const int nodes = static_cast<int>(evidence.system.numa_nodes.size());
  if (nodes < 2) return std::nullopt;
  const double tolerance = threshold(Threshold::kNumaNeutral);
  Hypothesis hypothesis;
  hypothesis.statement = fmt::format("Binding the issuing thread to any of the {} NUMA nodes leaves GPU-to-GPU copies "
                                     "unchanged",
                                     nodes);
  hypothesis.prediction = fmt::format("the largest relative difference between NUMA nodes is <= {}",
                                      format_percent(tolerance));
  hypothesis.basis = "system: NUMA nodes; peer copies move device memory only";
  hypothesis.needs = "measurements.numa_sweep";
  hypothesis.numbers = {{"tolerance", tolerance}, {"numa_nodes", nodes}};
  return hypothesis;
}

void judge_numa_neutral(const Context& context, Hypothesis& hypothesis) {
  const Evidence& evidence = context.evidence;
  if (!evidence.numa_measured) return set_untested(hypothesis, "not measured in this run: measurements.numa_sweep is absent");
  const auto difference = evidence.numa()->largest_relative_difference;
  if (!difference) {
    hypothesis.verdict = Verdict::kInconclusive;
    hypothesis.evidence = "the NUMA sweep gave no comparable numbers";
    return;
  }
  const double tolerance = hypothesis.numbers.value("tolerance", threshold(Threshold::kNumaNeutral));
  hypothesis.numbers["largest_relative_difference"] = *difference;
  hypothesis.verdict = *difference <= tolerance ? Verdict::kConfirmed : Verdict::kRefuted;
  hypothesis.evidence = fmt::format("largest difference across {} NUMA node(s): {} (tolerance {})",
                                    evidence.numa()->nodes.size(), format_percent(*difference),
                                    format_percent(tolerance));
}

}  // namespace linkscope::diagnose
