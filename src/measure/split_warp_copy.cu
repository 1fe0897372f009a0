#include "measure/split_warp_copy.hpp"

#include <algorithm>

#include "measure/verify_pattern.hpp"
#include "platform/cuda_check.hpp"
#include "platform/cuda_resources.hpp"

namespace linkscope::measure {

namespace {

constexpr int kThreads = 1024;
constexpr std::uint64_t kVectorsPerSegment = kSplitSegmentBytes / 16;
static_assert(kVectorsPerSegment == 32, "one segment is one warp's vectors, so a warp never diverges");

__device__ __forceinline__ bool moves_a_to_b(std::uint64_t vector) { return (vector / kVectorsPerSegment) & 1; }

// One thread per 16-byte vector over the whole buffer, each moving its vector `repeats` times: the layout of
// nvbandwidth's split-warp kernel. Measured on 1 x H200 over PCIe Gen5 (bidirectional host copy, 512 MiB, 2026-12-02):
// 42.0-42.2 GB/s per direction, where a persistent grid striding over the buffer (4 loads in flight per thread, or 1,
// or 4 contiguous) reached 37.6-40.7: the blocks of a full grid walk the buffer in order, so the host pages being
// read and written at any moment form one window instead of a grid-stride spread.
__global__ void split_warp_kernel(uint4* a, uint4* b, std::uint64_t vectors, std::uint32_t repeats) {
  const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= vectors) return;
  uint4* from = moves_a_to_b(i) ? &a[i] : &b[i];
  uint4* to = moves_a_to_b(i) ? &b[i] : &a[i];
  for (std::uint32_t pass = 0; pass < repeats; ++pass) __stcg(to, __ldcg(from));
}

__global__ void poison_segments_kernel(uint4* buffer, std::uint64_t vectors, std::uint32_t seed, bool odd) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors; i += stride) {
    if (moves_a_to_b(i) != odd) continue;
    const std::uint64_t word = i * 4;
    buffer[i] = make_uint4(~pattern_word(seed, word), ~pattern_word(seed, word + 1), ~pattern_word(seed, word + 2),
                           ~pattern_word(seed, word + 3));
  }
}

unsigned grid_for(std::uint64_t vectors) { return static_cast<unsigned>((vectors + kThreads - 1) / kThreads); }

}  // namespace

void launch_split_warp_copy(void* a, void* b, std::uint64_t bytes, std::uint32_t repeats, cudaStream_t stream) {
  const std::uint64_t vectors = bytes / 16;
  if (vectors == 0 || repeats == 0) return;
  split_warp_kernel<<<grid_for(vectors), kThreads, 0, stream>>>(static_cast<uint4*>(a), static_cast<uint4*>(b),
                                                                 vectors, repeats);
  LINKSCOPE_CUDA_CHECK(cudaGetLastError());
}

void preload_split_warp_copy(int device) {
  platform::ScopedDevice scope(device);
  split_warp_kernel<<<1, kThreads>>>(nullptr, nullptr, 0, 1);
  LINKSCOPE_CUDA_CHECK(cudaGetLastError());
  LINKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
}

void prepare_split_warp_buffers(void* a, void* b, std::uint64_t bytes, std::uint32_t seed, cudaStream_t stream) {
  const std::uint64_t vectors = bytes / 16;
  launch_fill_pattern(a, vectors * 16, seed, stream);
  launch_fill_pattern(b, vectors * 16, seed, stream);
  const unsigned blocks = static_cast<unsigned>(std::clamp<std::uint64_t>((vectors + 255) / 256, 1, 4096));
  poison_segments_kernel<<<blocks, 256, 0, stream>>>(static_cast<uint4*>(b), vectors, seed, true);
  poison_segments_kernel<<<blocks, 256, 0, stream>>>(static_cast<uint4*>(a), vectors, seed, false);
  LINKSCOPE_CUDA_CHECK(cudaGetLastError());
}

}  // namespace linkscope::measure
