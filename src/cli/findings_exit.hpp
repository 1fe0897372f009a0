#pragma once
#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "model/run.hpp"

// How a diagnosed run ends the process (`--fail-on`, `--exit-codes`), one policy for `doctor` and `cluster`, so a
// fleet's nightly job reads the same codes from both.
namespace linkscope::cli {

struct FindingsExit {
  std::string fail_on = "error";         // none|warning|error (exit_code.hpp: 6 and 7)
  std::string exit_codes = "linkscope";  // linkscope|nagios (NagiosStatus: 0 to 3)
  bool nagios() const { return exit_codes == "nagios"; }
};

// --fail-on and --exit-codes on `app`, with their help and checks.
void add_findings_exit_options(CLI::App& app, FindingsExit& policy);

// Runs a command under the policy: with --exit-codes nagios as a Nagios check (cli/error_exit's nagios_check: an
// error that would end linkscope exits 3 UNKNOWN), otherwise as it is.
int run_with_exit_policy(const FindingsExit& policy, const std::function<int()>& run);

// With --exit-codes nagios: the run's Nagios state (diagnose::nagios_status), whatever --fail-on says. Otherwise 130
// when the run was interrupted, 7 when a finding is an error, 6 when --fail-on warning and a finding is a warning,
// 0 otherwise, and always 0 with --fail-on none.
int findings_exit_code(const model::Run& run, const FindingsExit& policy);

}  // namespace linkscope::cli
