#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "platform/cuda_device_info.hpp"

namespace linkscope::platform {

// Makes `device` current for the scope and restores the previous device afterwards.
class ScopedDevice {
 public:
  explicit ScopedDevice(int device);
  ~ScopedDevice();
  ScopedDevice(const ScopedDevice&) = delete;
  ScopedDevice& operator=(const ScopedDevice&) = delete;

 private:
  int previous_ = 0;
};

// Device memory on one GPU (cudaMalloc); freed on that GPU.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(int device, std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* get() const { return pointer_; }
  template <typename T>
  T* as() const { return static_cast<T*>(pointer_); }
  std::size_t size() const { return bytes_; }
  int device() const { return device_; }

 private:
  void release() noexcept;
  void* pointer_ = nullptr;
  std::size_t bytes_ = 0;
  int device_ = -1;
};

// Page-locked host memory, mapped into every device's address space (cudaHostAllocMapped|Portable).
class PinnedHostBuffer {
 public:
  PinnedHostBuffer() = default;
  explicit PinnedHostBuffer(std::size_t bytes);
  ~PinnedHostBuffer();
  PinnedHostBuffer(PinnedHostBuffer&& other) noexcept;
  PinnedHostBuffer& operator=(PinnedHostBuffer&& other) noexcept;
  PinnedHostBuffer(const PinnedHostBuffer&) = delete;
  PinnedHostBuffer& operator=(const PinnedHostBuffer&) = delete;

  void* get() const { return pointer_; }
  template <typename T>
  T* as() const { return static_cast<T*>(pointer_); }
  std::size_t size() const { return bytes_; }
  // The buffer as kernels on `device` address it (it is mapped).
  void* device_view(int device) const;

 private:
  void release() noexcept;
  void* pointer_ = nullptr;
  std::size_t bytes_ = 0;
};

// A non-blocking stream on one GPU.
class Stream {
 public:
  explicit Stream(int device);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }
  int device() const { return device_; }
  void synchronize() const;

 private:
  cudaStream_t stream_ = nullptr;
  int device_ = -1;
};

// A timing event on one GPU.
class Event {
 public:
  explicit Event(int device);
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) const;
  void synchronize() const;
  // Milliseconds from `start` to `stop` (both recorded and complete).
  static float elapsed_ms(const Event& start, const Event& stop);

 private:
  cudaEvent_t event_ = nullptr;
  int device_ = -1;
};

}  // namespace linkscope::platform
