#pragma once
#include <cstdint>
#include <vector>

#include "plan/collective_pattern.hpp"
#include "plan/collective_spec.hpp"

// Where each rank's input lives, which part of its output is checked and against what, for every op in
// and out of place (nccl-tests' buffer conventions), plus the choice of verification values per type.
namespace linkscope::coll {

enum class BufferKind { kSend, kRecv };

// The buffers NCCL is called with, as element offsets (in place: both point into the receive buffer).
struct CallBuffers {
  BufferKind send_buffer = BufferKind::kSend;
  std::uint64_t send_offset = 0;
  std::uint64_t recv_offset = 0;
};
CallBuffers call_buffers(int rank, const CollectiveCounts& counts, bool in_place);

// Elements [offset, offset + count) of `buffer` get rank `value_rank`'s pattern values for indices
// 0 .. count-1. Absent when the rank sends nothing (non-root of broadcast and scatter).
struct InputPlacement {
  bool present = false;
  BufferKind buffer = BufferKind::kSend;
  std::uint64_t offset = 0;
  std::uint64_t count = 0;
  int value_rank = 0;
};
InputPlacement input_placement(CollectiveOp op, int rank, int nranks, int root, const CollectiveCounts& counts,
                               bool in_place);

// Receive-buffer elements [offset, offset + count) are checked. Element k must equal:
//  - reduce:      pattern_reduced(index_offset + k)                        (reductions)
//  - block:       pattern of rank k / block_count at index index_offset + k % block_count
//  - otherwise:   pattern of rank fixed_rank at index index_offset + k
struct OutputCheck {
  bool checked = false;
  std::uint64_t offset = 0;
  std::uint64_t count = 0;
  bool reduce = false;
  bool block = false;
  int fixed_rank = 0;
  std::uint64_t block_count = 1;
  std::uint64_t index_offset = 0;
};
// Nothing is checked on non-root ranks of reduce and gather (their output is undefined), or in place for
// alltoall and sendrecv.
OutputCheck output_check(CollectiveOp op, int rank, int nranks, int root, const CollectiveCounts& counts, bool in_place);

// Every check of one rank's output: output_check's one, or for alltoallv one per source in rank order (its segment
// of the receive buffer must hold the source's elements from where that source's part for this rank starts, as
// nccl-tests' AlltoAllvInitData expects); sources that send nothing have no segment.
std::vector<OutputCheck> output_checks(CollectiveOp op, int rank, int nranks, int root, const CollectiveCounts& counts,
                                       bool in_place);

// Largest N such that every integer 0..N is exact in `type` (capped at 2^40 for the wide types).
std::uint64_t max_exact_integer(DataType type);
// Largest k with 2^k exact and finite in `type` (capped at 62).
int max_power_of_two(DataType type);

// Verification values for one (op, type, redop, rank count); `seed` varies them between checks.
PatternParams make_pattern(CollectiveOp op, DataType type, RedOp redop, int nranks, std::uint32_t seed);

// Relative tolerance of a check that is not exact (float avg over a non-power-of-two rank count).
double pattern_tolerance(DataType type, int nranks);

}  // namespace linkscope::coll
