#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace linkscope::measure {

// A bidirectional copy by one kernel (nvbandwidth's SM bidirectional host testcases): the buffers `a` and `b` are
// cut into segments of kSplitSegmentBytes (one warp's 32 x 16-byte vectors); odd segments move a -> b, even
// segments b -> a. Half the bytes cross each way at once, from the same SMs, so the time of one pass is that of a
// bidirectional transfer of bytes / 2 per direction. Whole 16-byte vectors only: a trailing bytes % 16 is left.
inline constexpr std::uint64_t kSplitSegmentBytes = 512;

// Bytes one pass moves in each direction (what a per-direction rate counts).
inline constexpr std::uint64_t split_bytes_per_direction(std::uint64_t bytes) { return bytes / 16 * 16 / 2; }

// Enqueues one launch on `stream` (a stream of the current device) that repeats the split copy `repeats` times.
// `a` and `b` must be addressable from the current device (its memory, a peer's, or mapped pinned host memory).
void launch_split_warp_copy(void* a, void* b, std::uint64_t bytes, std::uint32_t repeats, cudaStream_t stream);

// Loads the kernel on `device` before a gated sample launches it (see preload_sample_kernels: a lazily loaded
// module could wait for the gated device to go idle).
void preload_split_warp_copy(int device);

// Before a split copy: `a` and `b` hold the pattern of `seed` (verify_pattern.hpp) except the segments the copy
// will overwrite (b's odd ones, a's even ones), which hold its complement. After any number of passes both hold
// the pattern everywhere, so launch_count_mismatches on each catches a pass that did not move its half.
void prepare_split_warp_buffers(void* a, void* b, std::uint64_t bytes, std::uint32_t seed, cudaStream_t stream);

}  // namespace linkscope::measure
