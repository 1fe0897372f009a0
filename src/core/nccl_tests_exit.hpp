#pragma once
#include "core/exit_code.hpp"

// The exit code of an nccl-tests name (*_perf) where nccl-tests' own main refuses a flag combination with
// `return -1` (the shell sees 255), e.g. -D without -R 2. Only the personalities use it; README "Exit codes" lists it.
namespace linkscope {

inline constexpr ExitCode kNcclTestsRefused = static_cast<ExitCode>(255);

}  // namespace linkscope
