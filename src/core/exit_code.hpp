#pragma once
#include <string_view>

namespace linkscope {

// The documented process exit codes (README "Exit codes"). Stable: scripts depend on them.
enum class ExitCode : int {
  kOk = 0,             // ran; nothing failed
  kInternal = 1,       // a bug in linkscope
  kUsage = 2,          // bad flag, size, GPU id, file or other input
  kDevice = 3,         // CUDA, NVML, NCCL or driver missing or failing
  kTimeout = 4,        // a watchdog expired (hung collective, stuck copy)
  kWrongResults = 5,   // verification found wrong data
  kThreshold = 6,      // a --check or `compare` threshold was crossed
  kProblemFound = 7,   // doctor: a finding of severity error (the report says what)
  kInterrupted = 130,  // SIGINT/SIGTERM: stopped early; what was measured is written (128 + SIGINT, as shells)
  // Only under an nccl-tests name (*_perf): a flag combination nccl-tests' own main refuses with `return -1`, which
  // the shell sees as 255 (e.g. -D without -R 2). `linkscope coll` reports the same refusal as kUsage.
  kNcclTestsRefused = 255,
};

constexpr int to_int(ExitCode code) { return static_cast<int>(code); }
std::string_view exit_code_name(ExitCode code);
std::string_view exit_code_meaning(ExitCode code);

}  // namespace linkscope
