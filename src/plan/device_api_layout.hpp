#pragma once
#include <cstdint>

// How the -D kernels divide their elements: host-only arithmetic (constexpr, so the kernels call it too through
// --expt-relaxed-constexpr) that the unit tests check exhaustively: every element is covered exactly once and every
// vector starts on a 16-byte boundary.
namespace linkscope::coll {

inline constexpr std::uint64_t kDeviceApiVectorBytes = 16;  // one ld.global.v4 / st.global.v4

// Vectors each thread of -D's alltoall kernels loads before it stores them. The launch has only -V CTAs (16 by
// default: 8192 threads), so the bytes in flight bound the copy: on one H100, 4 vectors per thread (512 KiB for the
// grid) ran at 0.88x of nccl-tests' optimized kernel, which keeps 128 bytes per thread (1 MiB), 8 at 1.01x and 16
// at 1.02x (bench/NOTES.md, issue 26).
inline constexpr int kDeviceApiAlltoallVectorsInFlight = 16;
inline constexpr std::uint64_t kNcclTestsAlltoallBytesInFlight = 128;  // per thread, nccl-tests 2.19.6 -D 2

struct ElementRange {
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

// The elements that rank `rank` of `ranks` sums in -D's all_reduce: consecutive slices of ceil(count / ranks)
// elements, rounded up to whole vectors of `per_vector` elements so that slices of aligned data start on a vector;
// the last ranks' slices may be short or empty.
constexpr ElementRange allreduce_slice(std::uint64_t count, int ranks, int rank, std::uint64_t per_vector) {
  const std::uint64_t n = ranks > 0 ? static_cast<std::uint64_t>(ranks) : 1;
  const std::uint64_t slice = (count + n - 1) / n;
  const std::uint64_t rounded = (slice + per_vector - 1) / per_vector * per_vector;
  const std::uint64_t begin = static_cast<std::uint64_t>(rank) * rounded;
  ElementRange range;
  range.begin = begin < count ? begin : count;
  range.end = range.begin + rounded < count ? range.begin + rounded : count;
  return range;
}

// `range` split into scalar elements up to the first one that starts a vector, whole vectors, and a scalar tail,
// for elements of `element_bytes` starting `offset_bytes` into vector-aligned memory.
struct VectorSplit {
  std::uint64_t first_vector = 0;  // element index where the vectors start (the head is [begin, first_vector))
  std::uint64_t vectors = 0;
  std::uint64_t tail = 0;          // element index where the tail starts (the tail is [tail, end))
};

constexpr VectorSplit split_for_vectors(ElementRange range, std::uint64_t offset_bytes, std::uint64_t element_bytes) {
  const std::uint64_t per_vector = kDeviceApiVectorBytes / element_bytes;
  const std::uint64_t phase = (offset_bytes / element_bytes + range.begin) % per_vector;
  const std::uint64_t aligned = phase == 0 ? range.begin : range.begin + per_vector - phase;
  VectorSplit split;
  split.first_vector = aligned < range.end ? aligned : range.end;
  split.vectors = (range.end - split.first_vector) / per_vector;
  split.tail = split.first_vector + split.vectors * per_vector;
  return split;
}

}  // namespace linkscope::coll
