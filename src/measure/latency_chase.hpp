#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "plan/p2p_plan.hpp"

namespace linkscope::measure {

// Pointer-chase latency: one thread follows a chain of 8-byte pointers, each load depending on the previous one,
// so time / loads is the latency of one load (here: a kernel on one GPU loading from another GPU's memory).
//
// The chain lives in `footprint_bytes` of the memory owner's buffer, one node per 128-byte line (the first 8
// bytes of each line), in the cycle order of plan::ChaseSpec: random (a shuffled cycle through every line) or
// stride (line after line, as nvbandwidth's chain). The load instruction is the spec's (cg, ca or plain).
//
// Loads per timed sample: ~1.7 ms at 0.85 us, so the ~1 us kernel start after the gate is ~0.06% of a sample.
// Each sample runs on the next SM in turn (see launch_pointer_chase), so a few hundred samples cover every SM.
inline constexpr std::uint64_t kChaseStepsPerSample = 2048;
// The untimed first walk: one lap (every line once: the chain into the owner's L2 where it fits, translations into
// the reader's TLBs), at most this many loads (32 MiB of lines; larger chains do not fit an L2 anyway).
inline constexpr std::uint64_t kChaseMaxWarmupSteps = 1ull << 18;

// For every node i of the chain (in address order), the address of the node that follows it, for a chain at
// `device_base` (the buffer's address as the chasing GPU sees it: with unified addressing a peer's allocation
// has the same address everywhere). Host-only.
std::vector<std::uint64_t> build_chase_links(std::uint64_t device_base, std::uint64_t footprint_bytes,
                                             plan::ChaseOrder order, std::uint32_t seed);

// Writes `links` (one per node) into the first word of each 128-byte node of `chain`, on the current device.
void write_chase_chain(void* chain, const std::vector<std::uint64_t>& links, cudaStream_t stream);

// One thread on the current device follows `steps` pointers with `load`, starting at the node `cursor` points to,
// and leaves the node it reached in `cursor` (so consecutive launches continue around the cycle: every line of the
// footprint is visited once per lap, whatever the steps per launch). `cursor` is device memory of this GPU.
// The chasing thread is the single thread of block `target_block` of a `grid_blocks`-block grid (the other blocks
// exit at once): with one block per SM, target_block chooses the SM that issues the loads.
void launch_pointer_chase(std::uint64_t* cursor, std::uint64_t steps, plan::ChaseLoad load, cudaStream_t stream,
                          unsigned grid_blocks = 1, unsigned target_block = 0);

}  // namespace linkscope::measure
