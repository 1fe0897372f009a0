#include "measure/verify_pattern.hpp"

#include <algorithm>

#include "platform/cuda_check.hpp"

namespace linkscope::measure {

namespace {

constexpr int kThreads = 256;
constexpr std::uint64_t kMaxBlocks = 4096;

unsigned blocks_for(std::uint64_t items) {
  return static_cast<unsigned>(std::clamp<std::uint64_t>((items + kThreads - 1) / kThreads, 1, kMaxBlocks));
}

__device__ uint4 pattern_vector(std::uint32_t seed, std::uint64_t vector_index, bool complement) {
  const std::uint64_t word = vector_index * 4;
  uint4 v = make_uint4(pattern_word(seed, word), pattern_word(seed, word + 1), pattern_word(seed, word + 2),
                       pattern_word(seed, word + 3));
  if (complement) v = make_uint4(~v.x, ~v.y, ~v.z, ~v.w);
  return v;
}

__global__ void fill_kernel(uint4* buffer, std::uint64_t vectors, std::uint32_t seed, bool complement) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors; i += stride) {
    buffer[i] = pattern_vector(seed, i, complement);
  }
}

__global__ void count_kernel(const uint4* buffer, std::uint64_t bytes, std::uint32_t seed, unsigned long long* counter) {
  const std::uint64_t vectors = bytes / 16;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned long long wrong = 0;
  for (std::uint64_t i = first; i < vectors; i += stride) {
    const uint4 got = buffer[i];
    const uint4 want = pattern_vector(seed, i, false);
    wrong += (got.x != want.x) + (got.y != want.y) + (got.z != want.z) + (got.w != want.w);
  }
  // The last partial vector (bytes % 16), word by word and then byte by byte.
  if (first == 0 && bytes % 16 != 0) {
    const auto* bytes_in = reinterpret_cast<const unsigned char*>(buffer);
    for (std::uint64_t word = vectors * 4; word * 4 < bytes; ++word) {
      const std::uint32_t want = pattern_word(seed, word);
      bool differs = false;
      for (std::uint64_t b = 0; b < 4 && word * 4 + b < bytes; ++b) {
        differs = differs || bytes_in[word * 4 + b] != static_cast<unsigned char>(want >> (8 * b));
      }
      wrong += differs;
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) wrong += __shfl_down_sync(0xffffffffu, wrong, offset);
  if ((threadIdx.x & 31) == 0 && wrong != 0) atomicAdd(counter, wrong);
}

}  // namespace

void launch_fill_pattern(void* buffer, std::uint64_t bytes, std::uint32_t seed, cudaStream_t stream) {
  const std::uint64_t vectors = (bytes + 15) / 16;
  fill_kernel<<<blocks_for(vectors), kThreads, 0, stream>>>(static_cast<uint4*>(buffer), vectors, seed, false);
  LINKSCOPE_CUDA_CHECK(cudaGetLastError());
}

void launch_poison(void* buffer, std::uint64_t bytes, std::uint32_t seed, cudaStream_t stream) {
  const std::uint64_t vectors = (bytes + 15) / 16;
  fill_kernel<<<blocks_for(vectors), kThreads, 0, stream>>>(static_cast<uint4*>(buffer), vectors, seed, true);
  LINKSCOPE_CUDA_CHECK(cudaGetLastError());
}

void launch_count_mismatches(const void* buffer, std::uint64_t bytes, std::uint32_t seed,
                             unsigned long long* counter, cudaStream_t stream) {
  count_kernel<<<blocks_for(bytes / 16 + 1), kThreads, 0, stream>>>(static_cast<const uint4*>(buffer), bytes, seed,
                                                                     counter);
  LINKSCOPE_CUDA_CHECK(cudaGetLastError());
}

}  // namespace linkscope::measure
