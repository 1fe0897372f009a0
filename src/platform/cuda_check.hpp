#pragma once
#include <cuda_runtime.h>

namespace linkscope::platform {

// Throws DeviceError (exit 3) naming the CUDA error, the call and where it was made; clears the
// sticky error state first so the next call does not inherit it.
[[noreturn]] void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line);

// For destructors: reports to stderr instead of throwing.
void warn_cuda_error(cudaError_t status, const char* call, const char* file, int line);

}  // namespace linkscope::platform

#define LINKSCOPE_CUDA_CHECK(call)                                                       \
  do {                                                                                   \
    const cudaError_t linkscope_status_ = (call);                                        \
    if (linkscope_status_ != cudaSuccess)                                                \
      ::linkscope::platform::throw_cuda_error(linkscope_status_, #call, __FILE__, __LINE__); \
  } while (0)

#define LINKSCOPE_CUDA_WARN(call)                                                        \
  do {                                                                                   \
    const cudaError_t linkscope_status_ = (call);                                        \
    if (linkscope_status_ != cudaSuccess)                                                \
      ::linkscope::platform::warn_cuda_error(linkscope_status_, #call, __FILE__, __LINE__); \
  } while (0)
