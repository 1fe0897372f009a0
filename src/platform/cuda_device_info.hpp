#pragma once
#include <cstdint>
#include <string>

// No CUDA header here: code outside platform/ and measure/ may ask about the GPUs through it.
namespace linkscope::platform {

// What a measurement needs to know about one GPU, and what identifies it across tools (BDF, UUID).
struct CudaDeviceInfo {
  int id = 0;
  std::string name;
  std::string pci_bdf;   // "0000:00:06.0"
  std::string uuid;      // "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx"
  int sm_count = 0;
  int major = 0, minor = 0;
  std::size_t shared_memory_per_block_optin = 0;
  std::uint64_t total_memory_bytes = 0;  // device memory as the properties report it (no context needed)
};
CudaDeviceInfo cuda_device_info(int device);

struct DeviceMemory {
  std::uint64_t free_bytes = 0;
  std::uint64_t total_bytes = 0;
};
// cudaMemGetInfo on `device` (creates its context).
DeviceMemory device_memory(int device);

// Number of CUDA devices; 0 (not an error) when there is no driver or no GPU. `reason` says why.
int cuda_device_count_or_zero(const char** reason = nullptr);

// Number of usable CUDA devices; throws DeviceError (exit 3) with the driver's reason when there is none.
int require_cuda_devices();

}  // namespace linkscope::platform
