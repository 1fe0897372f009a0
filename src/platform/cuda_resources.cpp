#include "platform/cuda_resources.hpp"

#include <utility>

#include "platform/cuda_check.hpp"

namespace linkscope::platform {

ScopedDevice::ScopedDevice(int device) {
  LINKSCOPE_CUDA_CHECK(cudaGetDevice(&previous_));
  LINKSCOPE_CUDA_CHECK(cudaSetDevice(device));
}

ScopedDevice::~ScopedDevice() { LINKSCOPE_CUDA_WARN(cudaSetDevice(previous_)); }

DeviceBuffer::DeviceBuffer(int device, std::size_t bytes) : bytes_(bytes), device_(device) {
  ScopedDevice scope(device);
  LINKSCOPE_CUDA_CHECK(cudaMalloc(&pointer_, bytes == 0 ? 1 : bytes));
}

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : pointer_(std::exchange(other.pointer_, nullptr)), bytes_(other.bytes_), device_(other.device_) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    pointer_ = std::exchange(other.pointer_, nullptr);
    bytes_ = other.bytes_;
    device_ = other.device_;
  }
  return *this;
}

void DeviceBuffer::release() noexcept {
  if (pointer_ == nullptr) return;
  int previous = 0;
  cudaGetDevice(&previous);
  cudaSetDevice(device_);
  LINKSCOPE_CUDA_WARN(cudaFree(pointer_));
  cudaSetDevice(previous);
  pointer_ = nullptr;
}

PinnedHostBuffer::PinnedHostBuffer(std::size_t bytes) : bytes_(bytes) {
  LINKSCOPE_CUDA_CHECK(cudaHostAlloc(&pointer_, bytes == 0 ? 1 : bytes, cudaHostAllocMapped | cudaHostAllocPortable));
}

PinnedHostBuffer::~PinnedHostBuffer() { release(); }

void* PinnedHostBuffer::device_view(int device) const {
  ScopedDevice scope(device);
  void* pointer = nullptr;
  LINKSCOPE_CUDA_CHECK(cudaHostGetDevicePointer(&pointer, pointer_, 0));
  return pointer;
}

PinnedHostBuffer::PinnedHostBuffer(PinnedHostBuffer&& other) noexcept
    : pointer_(std::exchange(other.pointer_, nullptr)), bytes_(other.bytes_) {}

PinnedHostBuffer& PinnedHostBuffer::operator=(PinnedHostBuffer&& other) noexcept {
  if (this != &other) {
    release();
    pointer_ = std::exchange(other.pointer_, nullptr);
    bytes_ = other.bytes_;
  }
  return *this;
}

void PinnedHostBuffer::release() noexcept {
  if (pointer_ == nullptr) return;
  LINKSCOPE_CUDA_WARN(cudaFreeHost(pointer_));
  pointer_ = nullptr;
}

Stream::Stream(int device) : device_(device) {
  ScopedDevice scope(device);
  LINKSCOPE_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}

Stream::~Stream() {
  if (stream_ != nullptr) LINKSCOPE_CUDA_WARN(cudaStreamDestroy(stream_));
}

void Stream::synchronize() const { LINKSCOPE_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

Event::Event(int device) : device_(device) {
  ScopedDevice scope(device);
  LINKSCOPE_CUDA_CHECK(cudaEventCreate(&event_));
}

Event::~Event() {
  if (event_ != nullptr) LINKSCOPE_CUDA_WARN(cudaEventDestroy(event_));
}

void Event::record(cudaStream_t stream) const { LINKSCOPE_CUDA_CHECK(cudaEventRecord(event_, stream)); }

void Event::synchronize() const { LINKSCOPE_CUDA_CHECK(cudaEventSynchronize(event_)); }

float Event::elapsed_ms(const Event& start, const Event& stop) {
  float ms = 0;
  LINKSCOPE_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, stop.event_));
  return ms;
}

int cuda_device_count_or_zero(const char** reason) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    if (reason != nullptr) *reason = cudaGetErrorString(status);
    cudaGetLastError();
    return 0;
  }
  if (count == 0 && reason != nullptr) *reason = "no CUDA device visible";
  return count;
}

}  // namespace linkscope::platform
