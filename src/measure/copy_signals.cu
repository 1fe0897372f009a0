#include "measure/copy_signals.hpp"

#include "platform/cuda_check.hpp"

namespace linkscope::measure {

namespace {

__global__ void set_flag(volatile std::uint32_t* flag, std::uint32_t value) {
  __threadfence_system();  // everything this stream did before is visible before the flag is
  *flag = value;
  __threadfence_system();
}

__global__ void wait_for_flags(const volatile std::uint32_t* flags, std::uint32_t count, std::uint32_t value,
                               long long timeout_ns, int* expired) {
  long long start = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  for (std::uint32_t i = 0; i < count; ++i) {
    while (flags[i] != value) {
      long long now = 0;
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
      if (now - start > timeout_ns) {
        atomicAdd(expired, 1);
        return;
      }
    }
  }
  __threadfence_system();
}

template <typename T>
T* device_view(const platform::PinnedHostBuffer& buffer) {
  T* pointer = nullptr;
  LINKSCOPE_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&pointer), buffer.get(), 0));
  return pointer;
}

}  // namespace

StreamSignals::StreamSignals(std::size_t slots, double timeout_seconds)
    : flags_(sizeof(std::uint32_t) * (slots + 1)), slots_(slots), timeout_seconds_(timeout_seconds) {
  for (std::size_t i = 0; i <= slots; ++i) __atomic_store_n(&flags_.as<std::uint32_t>()[i], 0u, __ATOMIC_SEQ_CST);
}

void StreamSignals::signal(int device, cudaStream_t stream, std::size_t slot, std::uint32_t epoch) const {
  platform::ScopedDevice scope(device);
  set_flag<<<1, 1, 0, stream>>>(device_view<std::uint32_t>(flags_) + slot, epoch);
  LINKSCOPE_CUDA_CHECK(cudaGetLastError());
}

void StreamSignals::wait(int device, cudaStream_t stream, std::size_t first, std::size_t count,
                         std::uint32_t epoch) const {
  if (count == 0) return;
  platform::ScopedDevice scope(device);
  auto* flags = device_view<std::uint32_t>(flags_);
  wait_for_flags<<<1, 1, 0, stream>>>(flags + first, static_cast<std::uint32_t>(count), epoch,
                                      static_cast<long long>(timeout_seconds_ * 1e9),
                                      reinterpret_cast<int*>(flags + slots_));
  LINKSCOPE_CUDA_CHECK(cudaGetLastError());
}

bool StreamSignals::expired() const { return __atomic_load_n(&flags_.as<std::uint32_t>()[slots_], __ATOMIC_SEQ_CST) != 0; }

void StreamSignals::reset_expired() { __atomic_store_n(&flags_.as<std::uint32_t>()[slots_], 0u, __ATOMIC_SEQ_CST); }

void preload_signal_kernels(int device) {
  platform::ScopedDevice scope(device);
  cudaFuncAttributes attributes{};
  LINKSCOPE_CUDA_CHECK(cudaFuncGetAttributes(&attributes, set_flag));
  LINKSCOPE_CUDA_CHECK(cudaFuncGetAttributes(&attributes, wait_for_flags));
}

}  // namespace linkscope::measure
