#pragma once
// What the -D kernels share: a sum that works for every type nccl-tests' kernels exist for (and over the elements
// packed into one 16-byte vector), the grid's thread numbering, and the typed launch. Included after nccl_device.h.
#include <cuda_fp16.h>

#include <cstdint>

#include "measure/devapi_kernels.hpp"
#include "plan/collective_spec.hpp"
#include "plan/device_api.hpp"
#include "plan/device_api_layout.hpp"

namespace linkscope::measure::devapi {

inline constexpr int kVectorBytes = static_cast<int>(coll::kDeviceApiVectorBytes);

template <typename T>
__device__ __forceinline__ T add(T a, T b) {
  return static_cast<T>(a + b);
}
template <>
__device__ __forceinline__ __half add<__half>(__half a, __half b) {
  return __hadd(a, b);
}

template <typename T>
__device__ __forceinline__ uint4 add_vector(uint4 a, uint4 b) {
  T* x = reinterpret_cast<T*>(&a);
  const T* y = reinterpret_cast<const T*>(&b);
#pragma unroll
  for (int k = 0; k < kVectorBytes / static_cast<int>(sizeof(T)); ++k) x[k] = add(x[k], y[k]);
  return a;
}

// Calls body<T>() with the C++ type of `type` (the types nccl-tests' device kernels are instantiated for).
template <typename Body>
cudaError_t with_type(coll::DataType type, Body&& body) {
  switch (type) {
    case coll::DataType::kInt8: return body(std::int8_t{});
    case coll::DataType::kUint8: return body(std::uint8_t{});
    case coll::DataType::kInt32: return body(std::int32_t{});
    case coll::DataType::kUint32: return body(std::uint32_t{});
    case coll::DataType::kInt64: return body(std::int64_t{});
    case coll::DataType::kUint64: return body(std::uint64_t{});
    case coll::DataType::kHalf: return body(__half{});
    case coll::DataType::kFloat: return body(float{});
    case coll::DataType::kDouble: return body(double{});
    default: return cudaErrorInvalidValue;
  }
}

// This thread's index over the whole grid, and the grid's thread count (the stride of the kernels' loops).
__device__ __forceinline__ std::size_t grid_thread() {
  return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ std::size_t grid_threads() { return static_cast<std::size_t>(gridDim.x) * blockDim.x; }

// Launches pick(T{}) -- one instantiation of a kernel taking (send, send offset, recv, recv offset, count, comm) --
// for the launch's type, on -V blocks of coll::kDeviceApiThreadsPerCta threads.
template <typename Pick>
cudaError_t launch_typed(const DevapiLaunch& launch, const ncclDevComm& comm, Pick&& pick) {
  return with_type(launch.type, [&](auto zero) {
    auto kernel = pick(zero);
    kernel<<<launch.ctas, coll::kDeviceApiThreadsPerCta, 0, launch.stream>>>(launch.send, launch.send_offset, launch.recv,
                                                                            launch.recv_offset, launch.count, comm);
    return cudaGetLastError();
  });
}

}  // namespace linkscope::measure::devapi
