#include "diagnose/diagnose.hpp"

#include <algorithm>
#include <iterator>
#include <string_view>

#include "diagnose/context.hpp"
#include "diagnose/hypotheses.hpp"
#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

namespace {

// The rules about what lies between hosts: the cross-host tests, how the hosts differ, the fleet, a soak's cycles
// and a run cut short.
constexpr std::string_view kBetweenHostsRules[] = {"cross-host-slow", "host-differs", "outside-fleet-baseline",
                                                   "soak-metric-changed", "link-flap", "run-incomplete"};

bool between_hosts(std::string_view id) {
  return std::find(std::begin(kBetweenHostsRules), std::end(kBetweenHostsRules), id) != std::end(kBetweenHostsRules);
}

std::vector<model::Finding> run_rules(const Context& context, bool only_between_hosts = false) {
  std::vector<model::Finding> findings;
  for (const auto& rule : all_rules()) {
    if (only_between_hosts && !between_hosts(rule.id)) continue;
    if (auto finding = rule.check(context)) findings.push_back(std::move(*finding));
  }
  std::stable_sort(findings.begin(), findings.end(),
                   [](const model::Finding& a, const model::Finding& b) { return a.severity > b.severity; });
  return findings;
}

}  // namespace

std::vector<model::Finding> find_problems(const model::Run& run) { return run_rules(Context(run)); }

Diagnosis diagnose(const model::Run& run, bool remake_hypotheses) {
  const Context context(run);
  Diagnosis diagnosis;
  // A `cluster` run's `system` is rank 0's facts beside every host's: judging them would single out rank 0's host.
  if (run.config.subcommand == "cluster") {
    diagnosis.findings = run_rules(context, true);
    return diagnosis;
  }
  diagnosis.hypotheses = remake_hypotheses || run.hypotheses.empty() ? make_hypotheses(run) : run.hypotheses;
  judge_hypotheses(context, diagnosis.hypotheses);
  diagnosis.findings = run_rules(context);
  return diagnosis;
}

void diagnose_into(model::Run& run, bool remake_hypotheses) {
  Diagnosis diagnosis = diagnose(run, remake_hypotheses);
  run.hypotheses = std::move(diagnosis.hypotheses);
  run.findings = std::move(diagnosis.findings);
}

}  // namespace linkscope::diagnose
