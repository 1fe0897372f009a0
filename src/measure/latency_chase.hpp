#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

namespace linkscope::measure {

// Pointer-chase latency: one thread follows a chain of 8-byte pointers, each load depending on the previous one,
// so time / loads is the latency of one load (here: a kernel on one GPU loading from another GPU's memory).
//
// The chain lives in `kChaseFootprintBytes` of the memory owner's buffer, one node per 128-byte line, in a
// random cyclic order (a fixed stride could be streamed by a prefetcher). 2 MiB fits in the owner's L2, as in
// nvbandwidth's device_to_device_latency_sm, so the figure is the link round trip plus a remote L2 hit.
inline constexpr std::uint64_t kChaseFootprintBytes = 2ull << 20;
inline constexpr std::uint64_t kChaseNodeBytes = 128;
// Loads per timed sample: ~7 ms at 0.8 us, so the ~1 us kernel start after the gate is ~0.01% of a sample.
inline constexpr std::uint64_t kChaseStepsPerSample = 8192;

// The chain as 64-bit words to copy into `device_base` (the buffer's address as the chasing GPU sees it:
// with unified addressing a peer's allocation has the same address everywhere). Host-only.
std::vector<std::uint64_t> build_chase_chain(std::uint64_t device_base, std::uint64_t footprint_bytes, std::uint32_t seed);

// One thread on the current device follows `steps` pointers from `start` (ld.global.cg: no L1) and stores the
// last one to `sink` so the chain cannot be optimised away.
void launch_pointer_chase(const void* start, std::uint64_t steps, std::uint64_t* sink, cudaStream_t stream);

}  // namespace linkscope::measure
