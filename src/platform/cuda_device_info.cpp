#include "platform/cuda_device_info.hpp"

#include <cuda_runtime.h>

#include <fmt/format.h>

#include "core/error.hpp"
#include "platform/cuda_check.hpp"
#include "platform/cuda_resources.hpp"

namespace linkscope::platform {

namespace {
std::string format_uuid(const cudaUUID_t& uuid) {
  const auto* b = reinterpret_cast<const unsigned char*>(uuid.bytes);
  return fmt::format("GPU-{:02x}{:02x}{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}",
                     b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}
}  // namespace

CudaDeviceInfo cuda_device_info(int device) {
  cudaDeviceProp prop{};
  LINKSCOPE_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  CudaDeviceInfo info;
  info.id = device;
  info.name = prop.name;
  char bdf[32] = {};
  if (cudaDeviceGetPCIBusId(bdf, sizeof bdf, device) == cudaSuccess) {
    info.pci_bdf = bdf;
  } else {
    cudaGetLastError();
  }
  info.uuid = format_uuid(prop.uuid);
  info.sm_count = prop.multiProcessorCount;
  info.major = prop.major;
  info.minor = prop.minor;
  info.shared_memory_per_block_optin = prop.sharedMemPerBlockOptin;
  info.total_memory_bytes = prop.totalGlobalMem;
  return info;
}

DeviceMemory device_memory(int device) {
  ScopedDevice scope(device);
  std::size_t free_bytes = 0, total_bytes = 0;
  LINKSCOPE_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return {free_bytes, total_bytes};
}

int require_cuda_devices() {
  const char* reason = nullptr;
  const int count = cuda_device_count_or_zero(&reason);
  if (count == 0) {
    throw DeviceError(fmt::format("no usable CUDA GPU ({}): is the NVIDIA driver loaded and a GPU visible?",
                                  reason != nullptr ? reason : "none visible"));
  }
  return count;
}

}  // namespace linkscope::platform
