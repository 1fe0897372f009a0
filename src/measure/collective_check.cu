#include "measure/collective_check.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "platform/cuda_check.hpp"

namespace linkscope::measure {

namespace {

using coll::DataType;
using coll::OutputCheck;
using coll::PatternKind;
using coll::PatternParams;

// Exact conversions of the small integers the patterns use, and a double view for tolerance checks.
template <typename T>
struct Element {
  __device__ static T from_integer(std::int64_t v) { return static_cast<T>(v); }
  __device__ static double to_double(T v) { return static_cast<double>(v); }
};
template <>
struct Element<__half> {
  __device__ static __half from_integer(std::int64_t v) { return __float2half_rn(static_cast<float>(v)); }
  __device__ static double to_double(__half v) { return __half2float(v); }
};
template <>
struct Element<__nv_bfloat16> {
  __device__ static __nv_bfloat16 from_integer(std::int64_t v) { return __float2bfloat16_rn(static_cast<float>(v)); }
  __device__ static double to_double(__nv_bfloat16 v) { return __bfloat162float(v); }
};
template <>
struct Element<__nv_fp8_e4m3> {
  __device__ static __nv_fp8_e4m3 from_integer(std::int64_t v) { return __nv_fp8_e4m3(static_cast<float>(v)); }
  __device__ static double to_double(__nv_fp8_e4m3 v) { return static_cast<float>(v); }
};
template <>
struct Element<__nv_fp8_e5m2> {
  __device__ static __nv_fp8_e5m2 from_integer(std::int64_t v) { return __nv_fp8_e5m2(static_cast<float>(v)); }
  __device__ static double to_double(__nv_fp8_e5m2 v) { return static_cast<float>(v); }
};

template <typename T>
__device__ std::uint64_t bits_of(T value) {
  std::uint64_t bits = 0;
  memcpy(&bits, &value, sizeof(T));
  return bits;
}

template <typename T>
__device__ T from_bits(std::uint64_t bits) {
  T value;
  memcpy(&value, &bits, sizeof(T));
  return value;
}

template <typename T>
__global__ void fill_kernel(T* data, std::uint64_t count, PatternParams p, int rank) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t k = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; k < count; k += stride) {
    if (p.kind == static_cast<int>(PatternKind::kBits)) {
      data[k] = from_bits<T>(coll::pattern_bits(p, rank, k));
    } else {
      data[k] = Element<T>::from_integer(coll::pattern_integer(p, rank, k));
    }
  }
}

template <typename T>
__device__ bool element_ok(T got, std::uint64_t k, const OutputCheck& c, const PatternParams& p, double tolerance) {
  if (!c.reduce) {
    const int source = c.block ? static_cast<int>(k / c.block_count) : c.fixed_rank;
    const std::uint64_t index = c.index_offset + (c.block ? k % c.block_count : k);
    return bits_of(got) == coll::pattern_bits(p, source, index);
  }
  const std::int64_t reduced = coll::pattern_reduced(p, c.index_offset + k);
  if (p.divide_by_ranks && !p.exact && p.is_float) {
    const double expected = static_cast<double>(reduced) / p.nranks;
    const double error = fabs(Element<T>::to_double(got) - expected);
    return error <= tolerance * fmax(fabs(expected), 1.0);
  }
  const std::int64_t value = p.divide_by_ranks ? reduced / p.nranks : reduced;
  return bits_of(got) == bits_of(Element<T>::from_integer(value));
}

template <typename T>
__global__ void verify_kernel(const T* data, OutputCheck c, PatternParams p, double tolerance,
                              unsigned long long* wrong) {
  unsigned long long local = 0;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t k = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; k < c.count; k += stride) {
    if (!element_ok(data[k], k, c, p, tolerance)) ++local;
  }
  // One atomic per warp that found something.
  for (int offset = 16; offset > 0; offset /= 2) local += __shfl_down_sync(0xffffffffu, local, offset);
  if ((threadIdx.x & 31) == 0 && local != 0) atomicAdd(wrong, local);
}

unsigned grid_for(std::uint64_t count) {
  constexpr std::uint64_t kThreads = 256;
  constexpr std::uint64_t kMaxBlocks = 4096;  // enough to fill any current GPU; the loops stride beyond
  const std::uint64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 1 ? 1 : (blocks > kMaxBlocks ? kMaxBlocks : blocks));
}

// Calls f(T{}) with the element type of `type`.
template <typename F>
void with_element_type(DataType type, F&& f) {
  switch (type) {
    case DataType::kInt8: f(std::int8_t{}); break;
    case DataType::kUint8: f(std::uint8_t{}); break;
    case DataType::kInt32: f(std::int32_t{}); break;
    case DataType::kUint32: f(std::uint32_t{}); break;
    case DataType::kInt64: f(std::int64_t{}); break;
    case DataType::kUint64: f(std::uint64_t{}); break;
    case DataType::kHalf: f(__half{}); break;
    case DataType::kFloat: f(float{}); break;
    case DataType::kDouble: f(double{}); break;
    case DataType::kBfloat16: f(__nv_bfloat16{}); break;
    case DataType::kF8e4m3: f(__nv_fp8_e4m3{}); break;
    case DataType::kF8e5m2: f(__nv_fp8_e5m2{}); break;
  }
}

}  // namespace

void launch_pattern_fill(void* data, std::uint64_t count, DataType type, const PatternParams& pattern, int value_rank,
                         cudaStream_t stream) {
  if (count == 0) return;
  with_element_type(type, [&](auto tag) {
    using T = decltype(tag);
    fill_kernel<T><<<grid_for(count), 256, 0, stream>>>(static_cast<T*>(data), count, pattern, value_rank);
  });
  LINKSCOPE_CUDA_CHECK(cudaGetLastError());
}

void launch_pattern_verify(const void* data, const OutputCheck& check, DataType type, const PatternParams& pattern,
                           double tolerance, unsigned long long* wrong_device, cudaStream_t stream) {
  if (!check.checked || check.count == 0) return;
  with_element_type(type, [&](auto tag) {
    using T = decltype(tag);
    verify_kernel<T><<<grid_for(check.count), 256, 0, stream>>>(static_cast<const T*>(data), check, pattern, tolerance,
                                                                wrong_device);
  });
  LINKSCOPE_CUDA_CHECK(cudaGetLastError());
}

WrongCounter::WrongCounter(int device) : device_(device, sizeof(unsigned long long)), host_(sizeof(unsigned long long)) {
  *host_.as<unsigned long long>() = 0;
}

void WrongCounter::reset(cudaStream_t stream) const {
  platform::ScopedDevice scope(device_.device());
  LINKSCOPE_CUDA_CHECK(cudaMemsetAsync(device_.get(), 0, sizeof(unsigned long long), stream));
}

void WrongCounter::fetch(cudaStream_t stream) const {
  platform::ScopedDevice scope(device_.device());
  LINKSCOPE_CUDA_CHECK(
      cudaMemcpyAsync(host_.get(), device_.get(), sizeof(unsigned long long), cudaMemcpyDeviceToHost, stream));
}

unsigned long long WrongCounter::value() const { return *host_.as<unsigned long long>(); }

}  // namespace linkscope::measure
