#include "measure/nccl_buffer.hpp"

#include <cuda_runtime.h>

#include <cstdio>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"
#include "measure/nccl_error.hpp"
#include "platform/cuda_check.hpp"
#include "platform/cuda_resources.hpp"
#include "platform/nccl_library.hpp"

namespace linkscope::measure {

NcclBuffer::NcclBuffer(int device, std::size_t bytes) : size_(bytes), device_(device) {
  platform::ScopedDevice scope(device);
  const auto& nccl = platform::nccl_library();
  const std::size_t request = bytes == 0 ? 1 : bytes;
  if (nccl.MemAlloc != nullptr && nccl.MemFree != nullptr) {
    const ncclResult_t result = nccl.MemAlloc(&pointer_, request);
    if (result != ncclSuccess) {
      throw DeviceError(fmt::format("cannot allocate {} bytes on GPU {}: {}", bytes, device,
                                    nccl_error_message(result, "ncclMemAlloc")));
    }
    from_nccl_ = true;
    return;
  }
  const cudaError_t status = cudaMalloc(&pointer_, request);
  if (status != cudaSuccess) {
    cudaGetLastError();
    throw DeviceError(fmt::format("cannot allocate {} bytes on GPU {}: {}", bytes, device, cudaGetErrorString(status)));
  }
}

NcclBuffer::~NcclBuffer() { release(); }

NcclBuffer::NcclBuffer(NcclBuffer&& other) noexcept
    : pointer_(std::exchange(other.pointer_, nullptr)), size_(other.size_), device_(other.device_),
      from_nccl_(other.from_nccl_) {}

NcclBuffer& NcclBuffer::operator=(NcclBuffer&& other) noexcept {
  if (this != &other) {
    release();
    pointer_ = std::exchange(other.pointer_, nullptr);
    size_ = other.size_;
    device_ = other.device_;
    from_nccl_ = other.from_nccl_;
  }
  return *this;
}

void NcclBuffer::release() noexcept {
  if (pointer_ == nullptr) return;
  int previous = 0;
  cudaGetDevice(&previous);
  cudaSetDevice(device_);
  if (from_nccl_) {
    const ncclResult_t result = platform::nccl_library().MemFree(pointer_);
    if (result != ncclSuccess) std::fprintf(stderr, "linkscope: warning: ncclMemFree failed\n");
  } else {
    LINKSCOPE_CUDA_WARN(cudaFree(pointer_));
  }
  cudaSetDevice(previous);
  pointer_ = nullptr;
}

}  // namespace linkscope::measure
