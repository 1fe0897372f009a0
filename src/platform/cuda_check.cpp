#include "platform/cuda_check.hpp"

#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "core/error.hpp"

namespace linkscope::platform {

namespace {
const char* base_name(const char* path) {
  const char* slash = std::strrchr(path, '/');
  return slash != nullptr ? slash + 1 : path;
}
}  // namespace

void throw_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  cudaGetLastError();
  throw DeviceError(fmt::format("CUDA {} ({}) in {} at {}:{}", cudaGetErrorName(status), cudaGetErrorString(status),
                                call, base_name(file), line));
}

void warn_cuda_error(cudaError_t status, const char* call, const char* file, int line) {
  cudaGetLastError();
  std::fprintf(stderr, "linkscope: warning: CUDA %s in %s at %s:%d\n", cudaGetErrorName(status), call, base_name(file),
               line);
}

}  // namespace linkscope::platform
