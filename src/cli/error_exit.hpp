#pragma once
#include <exception>
#include <functional>

// How an error that ends linkscope leaves the process: one line on stderr and an exit code.
namespace linkscope::cli {

// Prints "linkscope: error: <what>" (a linkscope::Error) or "linkscope: internal error: <what>" and returns the
// error's exit code (ExitCode::kInternal for any other exception).
int report_error(const std::exception& error);

// Runs a command as a Nagios check (`--exit-codes nagios`): an error that would end linkscope with its own code is
// reported as usual and ends it with 3 UNKNOWN, the state a monitoring system reads as "could not check".
int nagios_check(const std::function<int()>& run);

}  // namespace linkscope::cli
