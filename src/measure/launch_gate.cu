#include "measure/launch_gate.hpp"

#include "platform/cuda_check.hpp"

namespace linkscope::measure {

namespace {

__global__ void spin_until_open(volatile int* flags, long long timeout_ns) {
  long long start = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (flags[0] == 0) {
    long long now = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > timeout_ns) {
      atomicAdd(const_cast<int*>(&flags[1]), 1);
      return;
    }
  }
}

}  // namespace

LaunchGate::LaunchGate(double timeout_seconds) : flags_(2 * sizeof(int)), timeout_seconds_(timeout_seconds) {
  reset();
}

void LaunchGate::hold(int device, cudaStream_t stream) {
  platform::ScopedDevice scope(device);
  int* device_flags = nullptr;
  LINKSCOPE_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&device_flags), flags_.get(), 0));
  spin_until_open<<<1, 1, 0, stream>>>(device_flags, static_cast<long long>(timeout_seconds_ * 1e9));
  LINKSCOPE_CUDA_CHECK(cudaGetLastError());
}

void LaunchGate::release() {
  __atomic_store_n(&flags_.as<int>()[0], 1, __ATOMIC_SEQ_CST);
}

void LaunchGate::reset() {
  __atomic_store_n(&flags_.as<int>()[0], 0, __ATOMIC_SEQ_CST);
  __atomic_store_n(&flags_.as<int>()[1], 0, __ATOMIC_SEQ_CST);
}

bool LaunchGate::expired() const { return __atomic_load_n(&flags_.as<int>()[1], __ATOMIC_SEQ_CST) != 0; }

}  // namespace linkscope::measure
