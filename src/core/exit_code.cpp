#include "core/exit_code.hpp"

#include "core/nagios_status.hpp"

namespace linkscope {

std::string_view exit_code_name(ExitCode code) {
  switch (code) {
    case ExitCode::kOk: return "ok";
    case ExitCode::kInternal: return "internal";
    case ExitCode::kUsage: return "usage";
    case ExitCode::kDevice: return "device";
    case ExitCode::kTimeout: return "timeout";
    case ExitCode::kWrongResults: return "wrong-results";
    case ExitCode::kThreshold: return "threshold";
    case ExitCode::kProblemFound: return "problem-found";
    case ExitCode::kInterrupted: return "interrupted";
    case ExitCode::kNcclTestsRefused: return "nccl-tests-refused";
  }
  return "unknown";
}

std::string_view exit_code_meaning(ExitCode code) {
  switch (code) {
    case ExitCode::kOk: return "ran; nothing failed";
    case ExitCode::kInternal: return "internal error (a bug in linkscope)";
    case ExitCode::kUsage: return "usage or bad input: flag, size, GPU id, malformed file";
    case ExitCode::kDevice: return "CUDA, NVML, NCCL or the NVIDIA driver is missing or failed";
    case ExitCode::kTimeout: return "a watchdog expired (hung collective or copy); results so far are kept";
    case ExitCode::kWrongResults: return "verification found wrong data";
    case ExitCode::kThreshold: return "a --check or compare threshold was crossed (regression)";
    case ExitCode::kProblemFound: return "doctor (or cluster) found a problem of severity error";
    case ExitCode::kInterrupted: return "interrupted (SIGINT/SIGTERM); what was measured so far is written";
    case ExitCode::kNcclTestsRefused:
      return "as an nccl-tests name: a flag combination nccl-tests refuses (its exit 255)";
  }
  return "unknown";
}

std::string_view nagios_status_name(NagiosStatus status) {
  switch (status) {
    case NagiosStatus::kOk: return "OK";
    case NagiosStatus::kWarning: return "WARNING";
    case NagiosStatus::kCritical: return "CRITICAL";
    case NagiosStatus::kUnknown: break;
  }
  return "UNKNOWN";
}

}  // namespace linkscope
