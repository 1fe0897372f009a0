#include "measure/latency_chase.hpp"

#include <algorithm>
#include <numeric>
#include <random>

#include "platform/cuda_check.hpp"
#include "platform/cuda_resources.hpp"

namespace linkscope::measure {

namespace {

// Inline PTX keeps the exact load: the asm volatile chain cannot be reordered or cached in registers.
template <plan::ChaseLoad kLoad>
__device__ __forceinline__ std::uint64_t load_link(std::uint64_t address) {
  std::uint64_t next = 0;
  if constexpr (kLoad == plan::ChaseLoad::kCg) {
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(next) : "l"(address) : "memory");
  } else if constexpr (kLoad == plan::ChaseLoad::kCa) {
    asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(next) : "l"(address) : "memory");
  } else {
    asm volatile("ld.global.u64 %0, [%1];" : "=l"(next) : "l"(address) : "memory");
  }
  return next;
}

template <plan::ChaseLoad kLoad>
__global__ void pointer_chase_kernel(std::uint64_t* cursor, std::uint64_t steps, unsigned target_block) {
  // One block of the grid chases; the others leave at once. The grid spans the SMs, so target_block picks the SM
  // (in practice block i starts on its own SM), as nvbandwidth does: latency depends on where the load is issued.
  if (blockIdx.x != target_block) return;
  std::uint64_t p = *cursor;
  for (std::uint64_t i = 0; i < steps; ++i) p = load_link<kLoad>(p);
  *cursor = p;
}

__global__ void scatter_links(const std::uint64_t* links, std::uint64_t nodes, std::uint64_t* chain) {
  constexpr std::uint64_t kWordsPerNode = plan::kChaseNodeBytes / sizeof(std::uint64_t);
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < nodes; i += stride) {
    chain[i * kWordsPerNode] = links[i];
  }
}

}  // namespace

std::vector<std::uint64_t> build_chase_links(std::uint64_t device_base, std::uint64_t footprint_bytes,
                                             plan::ChaseOrder order, std::uint32_t seed) {
  const std::uint64_t nodes = footprint_bytes / plan::kChaseNodeBytes;
  std::vector<std::uint64_t> visit(nodes);
  std::iota(visit.begin(), visit.end(), 0);
  if (order == plan::ChaseOrder::kRandom) {
    // Any shuffle linked in visiting order (the last back to the first) is one cycle through every node.
    std::mt19937_64 random(seed);
    std::shuffle(visit.begin(), visit.end(), random);
  }
  std::vector<std::uint64_t> links(nodes);
  for (std::uint64_t i = 0; i < nodes; ++i) {
    links[visit[i]] = device_base + visit[(i + 1) % nodes] * plan::kChaseNodeBytes;
  }
  return links;
}

void write_chase_chain(void* chain, const std::vector<std::uint64_t>& links, cudaStream_t stream) {
  int device = 0;
  LINKSCOPE_CUDA_CHECK(cudaGetDevice(&device));
  platform::DeviceBuffer staging(device, links.size() * sizeof(std::uint64_t));
  LINKSCOPE_CUDA_CHECK(cudaMemsetAsync(chain, 0, links.size() * plan::kChaseNodeBytes, stream));
  LINKSCOPE_CUDA_CHECK(cudaMemcpyAsync(staging.get(), links.data(), links.size() * sizeof(std::uint64_t),
                                       cudaMemcpyHostToDevice, stream));
  scatter_links<<<256, 256, 0, stream>>>(staging.as<std::uint64_t>(), links.size(), static_cast<std::uint64_t*>(chain));
  LINKSCOPE_CUDA_CHECK(cudaGetLastError());
  LINKSCOPE_CUDA_CHECK(cudaStreamSynchronize(stream));  // before `staging` is freed
}

void launch_pointer_chase(std::uint64_t* cursor, std::uint64_t steps, plan::ChaseLoad load, cudaStream_t stream,
                          unsigned grid_blocks, unsigned target_block) {
  const dim3 grid(std::max(grid_blocks, target_block + 1));
  switch (load) {
    case plan::ChaseLoad::kCg:
      pointer_chase_kernel<plan::ChaseLoad::kCg><<<grid, 1, 0, stream>>>(cursor, steps, target_block);
      break;
    case plan::ChaseLoad::kCa:
      pointer_chase_kernel<plan::ChaseLoad::kCa><<<grid, 1, 0, stream>>>(cursor, steps, target_block);
      break;
    case plan::ChaseLoad::kPlain:
      pointer_chase_kernel<plan::ChaseLoad::kPlain><<<grid, 1, 0, stream>>>(cursor, steps, target_block);
      break;
  }
  LINKSCOPE_CUDA_CHECK(cudaGetLastError());
}

}  // namespace linkscope::measure
