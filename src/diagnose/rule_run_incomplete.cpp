// run-incomplete: the doctor stopped before its last step (Ctrl-C, SIGTERM) or found nothing it could measure;
// what it did measure is in the run, and this says where it stopped.
#include <fmt/format.h>

#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_run_incomplete(const Context& context) {
  const model::Run& run = context.evidence.run;
  if (!run.config.stopped) return std::nullopt;
  Finding finding;
  finding.id = "run-incomplete";
  finding.severity = Severity::kWarning;
  finding.evidence.push_back(*run.config.stopped);
  for (const auto& error : run.errors) {
    if (error.message.rfind("stopped by", 0) == 0) finding.evidence.push_back(error.where + ": " + error.message);
  }
  finding.title = "the run stopped early: " + *run.config.stopped;
  finding.explanation = "Only the steps before the stop were measured; hypotheses that need the others are untested.";
  finding.cause = "the run was interrupted (Ctrl-C, a job's time limit, kill)";
  finding.next_command = "linkscope doctor";
  return finding;
}

}  // namespace linkscope::diagnose
