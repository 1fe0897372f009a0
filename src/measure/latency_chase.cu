#include "measure/latency_chase.hpp"

#include <algorithm>
#include <numeric>
#include <random>

#include "platform/cuda_check.hpp"

namespace linkscope::measure {

namespace {

__global__ void pointer_chase_kernel(const std::uint64_t* start, std::uint64_t steps, std::uint64_t* sink) {
  const std::uint64_t* p = start;
  for (std::uint64_t i = 0; i < steps; ++i) {
    std::uint64_t next = 0;
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(next) : "l"(p) : "memory");
    p = reinterpret_cast<const std::uint64_t*>(next);
  }
  *sink = reinterpret_cast<std::uint64_t>(p);
}

}  // namespace

std::vector<std::uint64_t> build_chase_chain(std::uint64_t device_base, std::uint64_t footprint_bytes, std::uint32_t seed) {
  const std::uint64_t nodes = footprint_bytes / kChaseNodeBytes;
  const std::uint64_t words_per_node = kChaseNodeBytes / sizeof(std::uint64_t);
  std::vector<std::uint64_t> order(nodes);
  std::iota(order.begin(), order.end(), 0);
  // Visiting the nodes in a shuffled order and linking each to the next (the last back to the first) makes one
  // cycle through every node, whatever the shuffle; any node is a valid start.
  std::mt19937_64 random(seed);
  std::shuffle(order.begin(), order.end(), random);
  std::vector<std::uint64_t> words(nodes * words_per_node, 0);
  for (std::uint64_t i = 0; i < nodes; ++i) {
    words[order[i] * words_per_node] = device_base + order[(i + 1) % nodes] * kChaseNodeBytes;
  }
  return words;
}

void launch_pointer_chase(const void* start, std::uint64_t steps, std::uint64_t* sink, cudaStream_t stream) {
  pointer_chase_kernel<<<1, 1, 0, stream>>>(static_cast<const std::uint64_t*>(start), steps, sink);
  LINKSCOPE_CUDA_CHECK(cudaGetLastError());
}

}  // namespace linkscope::measure
