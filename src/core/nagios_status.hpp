#pragma once
#include <string_view>

// The exit codes of `doctor --exit-codes nagios`, beside ExitCode (core/exit_code.hpp, README "Exit codes") but in
// a header of their own: few files need them.
namespace linkscope {

// `doctor --exit-codes nagios`: the four states of the Nagios plugin API (also Icinga, Sensu, Zabbix, Checkmk),
// in place of ExitCode (README "Exit codes"; diagnose/run_status maps a run to one).
enum class NagiosStatus : int {
  kOk = 0,        // no finding above info
  kWarning = 1,   // a warning finding
  kCritical = 2,  // an error finding
  kUnknown = 3,   // the machine could not be judged: no driver or GPU, the run stopped early, linkscope failed
};

constexpr int to_int(NagiosStatus status) { return static_cast<int>(status); }
std::string_view nagios_status_name(NagiosStatus status);  // "OK", "WARNING", "CRITICAL", "UNKNOWN"

}  // namespace linkscope
