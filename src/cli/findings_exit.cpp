#include "cli/findings_exit.hpp"

#include "cli/error_exit.hpp"
#include "core/exit_code.hpp"
#include "diagnose/run_status.hpp"

namespace linkscope::cli {

void add_findings_exit_options(CLI::App& app, FindingsExit& policy) {
  app.add_option("--fail-on", policy.fail_on,
                 "error: exit 7 on an error finding; warning: also exit 6 on a warning; none: always 0")
      ->check(CLI::IsMember({"none", "warning", "error"}))
      ->capture_default_str();
  app.add_option("--exit-codes", policy.exit_codes,
                 "linkscope: the codes of README's table; nagios: 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN "
                 "(no driver or GPU, run stopped early, linkscope failed)")
      ->check(CLI::IsMember({"linkscope", "nagios"}))
      ->capture_default_str();
}

int run_with_exit_policy(const FindingsExit& policy, const std::function<int()>& run) {
  return policy.nagios() ? nagios_check(run) : run();
}

int findings_exit_code(const model::Run& run, const FindingsExit& policy) {
  if (policy.nagios()) return to_int(diagnose::nagios_status(run));
  if (policy.fail_on == "none") return 0;
  if (run.config.stopped && run.config.stopped->rfind("interrupted", 0) == 0) return to_int(ExitCode::kInterrupted);
  const auto worst = diagnose::worst_severity(run);  // a cluster's run: every host's own findings count too
  if (worst == model::Severity::kError) return to_int(ExitCode::kProblemFound);
  if (worst == model::Severity::kWarning && policy.fail_on == "warning") return to_int(ExitCode::kThreshold);
  return 0;
}

}  // namespace linkscope::cli
