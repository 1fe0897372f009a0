#pragma once
#include <vector>

#include "core/run.hpp"
#include "diagnose/finding.hpp"
#include "diagnose/hypotheses.hpp"

// Entry points of the diagnosis layer: pure functions of a RunDocument (saved or live).
namespace linkscope::diagnose {

// Every rule's finding, most severe first (rule order within a severity).
std::vector<Finding> find_problems(const RunDocument& run);

// Judges the run's hypotheses (making them first when the run has none, or always with `remake_hypotheses`) and
// replaces run.hypotheses and run.findings with the results.
void diagnose(RunDocument& run, bool remake_hypotheses = false);

// True when the run carries a diagnosis (hypotheses or findings written by `diagnose`).
bool has_diagnosis(const RunDocument& run);

}  // namespace linkscope::diagnose
