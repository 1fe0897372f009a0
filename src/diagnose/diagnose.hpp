#pragma once
#include <vector>

#include "model/run.hpp"

// Entry points of the diagnosis layer: pure functions of the typed Run (saved or live).
namespace linkscope::diagnose {

using model::Finding;
using model::Hypothesis;
using model::Severity;
using model::Verdict;

struct Diagnosis {
  std::vector<model::Hypothesis> hypotheses;
  std::vector<model::Finding> findings;
};

// Every rule's finding, most severe first (rule order within a severity).
std::vector<model::Finding> find_problems(const model::Run& run);

// The run's hypotheses (made first when it has none, or always with `remake_hypotheses`) judged against its
// measurements, and every rule's finding. A `cluster` run (config.subcommand) is judged only by the rules about what
// lies between hosts (cross-host-slow, host-differs, outside-fleet-baseline, soak-metric-changed, link-flap,
// run-incomplete), without hypotheses: its hosts' own facts are doctor's to judge, every host alike, not rank 0's
// alone because its facts are the run's `system`.
[[nodiscard]] Diagnosis diagnose(const model::Run& run, bool remake_hypotheses = false);

// diagnose() written into the run.
void diagnose_into(model::Run& run, bool remake_hypotheses = false);

}  // namespace linkscope::diagnose
