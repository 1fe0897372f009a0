#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace linkscope::measure {

// The data every copy moves: 4-byte word i of a buffer with seed s holds pattern_word(s, i), a hash of both, so
// a copy that moved nothing, moved the wrong range or came from the wrong source (each source GPU or edge has
// its own seed) leaves mismatches. Buffers hold whole 16-byte vectors; a copy of `bytes` is checked on exactly
// its first `bytes` bytes.
__host__ __device__ inline std::uint32_t pattern_word(std::uint32_t seed, std::uint64_t index) {
  std::uint64_t x = index + (static_cast<std::uint64_t>(seed) << 32) + 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;  // splitmix64 finaliser
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  x ^= x >> 31;
  return static_cast<std::uint32_t>(x >> 32);
}

// A seed per source (GPU id, edge index ...) derived from the run's seed.
inline std::uint32_t derived_seed(std::uint32_t run_seed, std::uint32_t which) {
  return run_seed ^ (0x9E3779B9u * (which + 1));
}

// Kernels on the current device, asynchronous on `stream`. `buffer` must be device-accessible from it
// (device memory, peer memory with access enabled, or a mapped pinned host pointer) and hold
// ceil(bytes / 16) * 16 bytes.
void launch_fill_pattern(void* buffer, std::uint64_t bytes, std::uint32_t seed, cudaStream_t stream);
// Writes the bitwise complement of the pattern: every word differs from what a correct copy leaves.
void launch_poison(void* buffer, std::uint64_t bytes, std::uint32_t seed, cudaStream_t stream);
// Adds to *counter the number of 4-byte words among the first `bytes` bytes that differ from the pattern
// (a trailing partial word counts when any of its bytes differ).
void launch_count_mismatches(const void* buffer, std::uint64_t bytes, std::uint32_t seed,
                             unsigned long long* counter, cudaStream_t stream);

}  // namespace linkscope::measure
