#pragma once
// How a CUDA version number reads: CUDA (cudaDriverGetVersion, cudaRuntimeGetVersion, NVML) encodes 13.0 as 13000.
#include <string>

#include <fmt/format.h>

namespace linkscope {

inline std::string cuda_version_text(int version) { return fmt::format("{}.{}", version / 1000, version % 1000 / 10); }

}  // namespace linkscope
