#include "diagnose/diagnose.hpp"

#include <algorithm>

#include "diagnose/context.hpp"
#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

std::vector<Finding> find_problems(const RunDocument& run) {
  const Context context = make_context(run);
  std::vector<Finding> findings;
  for (const auto& rule : all_rules()) {
    if (auto finding = rule.check(context)) findings.push_back(std::move(*finding));
  }
  std::stable_sort(findings.begin(), findings.end(),
                   [](const Finding& a, const Finding& b) { return a.severity > b.severity; });
  return findings;
}

void diagnose(RunDocument& run, bool remake_hypotheses) {
  if (remake_hypotheses) run.hypotheses = nlohmann::json::array();
  nlohmann::json hypotheses = nlohmann::json::array();
  for (const auto& hypothesis : judge_hypotheses(run)) hypotheses.push_back(hypothesis_to_json(hypothesis));
  nlohmann::json findings = nlohmann::json::array();
  for (const auto& finding : find_problems(run)) findings.push_back(finding_to_json(finding));
  run.hypotheses = std::move(hypotheses);
  run.findings = std::move(findings);
}

bool has_diagnosis(const RunDocument& run) {
  return (run.hypotheses.is_array() && !run.hypotheses.empty()) || (run.findings.is_array() && !run.findings.empty());
}

}  // namespace linkscope::diagnose
