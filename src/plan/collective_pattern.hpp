#pragma once
#include <cstdint>

// Input values for collective verification that make every result exactly predictable, whatever order NCCL
// reduces in. Shared by the host (tests, parameter choice) and the GPU fill/check kernels, so it is plain
// inline arithmetic without the standard library.
//
// - Data movement (all_gather, broadcast, alltoall, sendrecv, gather, scatter): each element holds hash bits
//   of (seed, source rank, index), masked to the element width; for floating-point types the top exponent
//   bit is cleared so no value is NaN or infinite. A misplaced or stale element is caught bit for bit.
// - Sum, avg, mulsum: small non-negative integers. Every partial sum is bounded by the largest integer the
//   type represents exactly (e.g. 2048 for half, 8 for f8e5m2), so floating-point sums are exact in any
//   order. With many ranks and a narrow type, only ranks with (index + rank) % period == 0 contribute.
//   avg scales each value by the rank count, so sum / n is an integer again (exact for power-of-two counts;
//   other counts get a tolerance because NCCL pre-multiplies by 1/n).
// - Prod: factors 1 and 2, few enough twos per element that products are exact powers of two.
// - Max, min: small integers (negative ones too for signed and float types) from about two ranks per
//   element; the other ranks hold the neutral value.
#if defined(__CUDACC__)
#define LINKSCOPE_HOST_DEVICE __host__ __device__
#else
#define LINKSCOPE_HOST_DEVICE
#endif

namespace linkscope::coll {

enum class PatternKind : int { kBits = 0, kSum = 1, kProd = 2, kMax = 3, kMin = 4 };

struct PatternParams {
  int kind = 0;                     // PatternKind
  int nranks = 1;
  int element_size = 4;
  bool is_float = false;
  std::uint32_t seed = 0;
  std::uint64_t modulus = 2;        // values (before scaling) in [0, modulus)
  std::uint64_t period = 1;         // rank r contributes to index j only if (j + r) % period == 0 (sum, prod)
  std::int64_t offset = 0;          // subtracted from max/min values
  std::int64_t scale = 1;           // avg: every value is multiplied by nranks
  bool odd_ranks_double = false;    // mulsum: odd ranks' scalar is 2, even ranks' 1 (nccl-tests' choice)
  bool divide_by_ranks = false;     // avg: the result is the sum divided by nranks
  bool exact = true;                // false for float avg over a non-power-of-two rank count
  std::uint64_t float_mask = ~std::uint64_t{0};  // kBits: clears the top exponent bit of float types
};

LINKSCOPE_HOST_DEVICE inline std::uint64_t pattern_mix(std::uint64_t x) {
  // splitmix64's finaliser: cheap, and every input bit affects every output bit.
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

LINKSCOPE_HOST_DEVICE inline std::uint64_t pattern_hash(std::uint32_t seed, int rank, std::uint64_t index) {
  return pattern_mix((static_cast<std::uint64_t>(seed) << 32) ^ (static_cast<std::uint64_t>(rank) * 0x9e3779b97f4a7c15ULL) ^
                     pattern_mix(index + 0x632be59bd9b4e019ULL));
}

LINKSCOPE_HOST_DEVICE inline bool pattern_contributes(const PatternParams& p, int rank, std::uint64_t index) {
  return p.period <= 1 || (index + static_cast<std::uint64_t>(rank)) % p.period == 0;
}

// Raw bits of element `index` of rank `rank`'s input (kBits).
LINKSCOPE_HOST_DEVICE inline std::uint64_t pattern_bits(const PatternParams& p, int rank, std::uint64_t index) {
  std::uint64_t bits = pattern_hash(p.seed, rank, index);
  if (p.element_size < 8) bits &= (std::uint64_t{1} << (8 * p.element_size)) - 1;
  return bits & p.float_mask;
}

// Integer input value of element `index` on rank `rank` (every kind but kBits).
LINKSCOPE_HOST_DEVICE inline std::int64_t pattern_integer(const PatternParams& p, int rank, std::uint64_t index) {
  switch (static_cast<PatternKind>(p.kind)) {
    case PatternKind::kSum:
      if (!pattern_contributes(p, rank, index)) return 0;
      return static_cast<std::int64_t>(pattern_hash(p.seed, rank, index) % p.modulus) * p.scale;
    case PatternKind::kProd:
      // Only ranks up to a per-index limit contribute a 2, so the product varies with the index even when
      // the rank count is a multiple of the period.
      return pattern_contributes(p, rank, index) &&
                     static_cast<std::uint64_t>(rank) <= pattern_hash(p.seed, 0, index) % static_cast<std::uint64_t>(p.nranks)
                 ? 2
                 : 1;
    case PatternKind::kMax:
    case PatternKind::kMin:
      // Non-contributing ranks hold the neutral value, so the extremum of a few ranks varies with the index
      // instead of saturating at the top of a narrow type's range.
      if (!pattern_contributes(p, rank, index)) {
        return static_cast<PatternKind>(p.kind) == PatternKind::kMax ? -p.offset
                                                                     : static_cast<std::int64_t>(p.modulus - 1) - p.offset;
      }
      return static_cast<std::int64_t>(pattern_hash(p.seed, rank, index) % p.modulus) - p.offset;
    case PatternKind::kBits: break;
  }
  return 0;
}

// NCCL's PreMulSum scalar for `rank` when the reduction is mulsum.
LINKSCOPE_HOST_DEVICE inline std::int64_t pattern_weight(const PatternParams& p, int rank) {
  return p.odd_ranks_double && (rank % 2) == 1 ? 2 : 1;
}

// The reduction of element `index` over all ranks, exactly (for avg: before the division by nranks).
// Sum and prod visit only contributing ranks, so the cost is nranks / period per element.
LINKSCOPE_HOST_DEVICE inline std::int64_t pattern_reduced(const PatternParams& p, std::uint64_t index) {
  const auto kind = static_cast<PatternKind>(p.kind);
  if (kind == PatternKind::kSum || kind == PatternKind::kProd) {
    const std::uint64_t period = p.period <= 1 ? 1 : p.period;
    const std::uint64_t first = (period - index % period) % period;
    std::int64_t sum = 0;
    int twos = 0;
    for (std::uint64_t r = first; r < static_cast<std::uint64_t>(p.nranks); r += period) {
      if (kind == PatternKind::kSum) {
        sum += pattern_weight(p, static_cast<int>(r)) * pattern_integer(p, static_cast<int>(r), index);
      } else if (pattern_integer(p, static_cast<int>(r), index) == 2) {
        ++twos;
      }
    }
    return kind == PatternKind::kSum ? sum : (std::int64_t{1} << twos);
  }
  std::int64_t best = pattern_integer(p, 0, index);
  for (int r = 1; r < p.nranks; ++r) {
    const std::int64_t v = pattern_integer(p, r, index);
    if (kind == PatternKind::kMax ? v > best : v < best) best = v;
  }
  return best;
}

}  // namespace linkscope::coll
