#include "plan/collective_layout.hpp"

#include <algorithm>

namespace linkscope::coll {

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

bool is_power_of_two(int n) { return n > 0 && (n & (n - 1)) == 0; }

// alltoallv: elements rank `from` sends rank `to`.
std::uint64_t peer_elements(const CollectiveCounts& counts, int from, int to, int nranks) {
  return (*counts.peer_bytes)[static_cast<std::size_t>(from) * static_cast<std::size_t>(nranks) + to] /
         counts.element_size;
}

// Smallest period P such that at most `limit` ranks contribute to any index (ceil(n / P) <= limit).
std::uint64_t period_for(int nranks, std::uint64_t limit) {
  if (limit == 0) return static_cast<std::uint64_t>(nranks) + 1;  // nobody contributes: never reached in practice
  return std::max<std::uint64_t>(1, ceil_div(static_cast<std::uint64_t>(nranks), limit));
}

std::uint64_t float_mask(DataType type) {
  switch (type) {
    case DataType::kHalf:
    case DataType::kBfloat16: return 0xffffULL & ~(1ULL << 14);
    case DataType::kFloat: return 0xffffffffULL & ~(1ULL << 30);
    case DataType::kDouble: return ~(1ULL << 62);
    case DataType::kF8e4m3:
    case DataType::kF8e5m2: return 0xffULL & ~(1ULL << 6);
    default: return ~std::uint64_t{0};
  }
}

}  // namespace

CallBuffers call_buffers(int rank, const CollectiveCounts& counts, bool in_place) {
  CallBuffers b;
  if (in_place) {
    b.send_buffer = BufferKind::kRecv;
    b.send_offset = counts.send_in_place_offset * static_cast<std::uint64_t>(rank);
    b.recv_offset = counts.recv_in_place_offset * static_cast<std::uint64_t>(rank);
  }
  return b;
}

InputPlacement input_placement(CollectiveOp op, int rank, int nranks, int root, const CollectiveCounts& counts,
                               bool in_place) {
  InputPlacement in;
  const CallBuffers b = call_buffers(rank, counts, in_place);
  in.buffer = b.send_buffer;
  in.offset = b.send_offset;
  in.count = counts.send_count;
  in.value_rank = rank;
  in.present = true;
  if ((op == CollectiveOp::kBroadcast || op == CollectiveOp::kScatter) && rank != root) in.present = false;
  if (op == CollectiveOp::kAlltoAllv && counts.peer_bytes) {
    // This rank's own total, not the busiest rank's.
    in.count = 0;
    for (int peer = 0; peer < nranks; ++peer) in.count += peer_elements(counts, rank, peer, nranks);
    in.present = in.count > 0;
  }
  return in;
}

OutputCheck output_check(CollectiveOp op, int rank, int nranks, int root, const CollectiveCounts& counts, bool in_place) {
  OutputCheck check;
  const CallBuffers b = call_buffers(rank, counts, in_place);
  check.offset = b.recv_offset;
  check.count = counts.recv_count;
  const std::uint64_t c = counts.param_count;
  const auto r = static_cast<std::uint64_t>(rank);
  check.checked = true;
  switch (op) {
    case CollectiveOp::kAllReduce: check.reduce = true; break;
    case CollectiveOp::kReduce:
      check.reduce = true;
      check.checked = rank == root;
      break;
    case CollectiveOp::kReduceScatter:
      check.reduce = true;
      check.index_offset = r * c;
      break;
    case CollectiveOp::kBroadcast: check.fixed_rank = root; break;
    case CollectiveOp::kSendRecv:
      check.fixed_rank = (rank - 1 + nranks) % nranks;
      check.checked = !in_place;
      break;
    case CollectiveOp::kScatter:
      check.fixed_rank = root;
      check.index_offset = r * c;
      break;
    case CollectiveOp::kAllGather:
    case CollectiveOp::kHypercube:  // the same result as all_gather
      check.block = true;
      check.block_count = c;
      break;
    case CollectiveOp::kGather:
      check.block = true;
      check.block_count = c;
      check.checked = rank == root;
      break;
    case CollectiveOp::kAlltoAll:
      check.block = true;
      check.block_count = c;
      check.index_offset = r * c;
      check.checked = !in_place;
      break;
    case CollectiveOp::kAlltoAllv: check.checked = false; break;  // segments of their own: output_checks()
  }
  if (check.block_count == 0) check.block_count = 1;
  if (check.count == 0) check.checked = false;
  return check;
}

std::uint64_t max_exact_integer(DataType type) {
  switch (type) {
    case DataType::kInt8: return 127;
    case DataType::kUint8: return 255;
    case DataType::kInt32: return (1ULL << 31) - 1;
    case DataType::kUint32: return (1ULL << 32) - 1;
    case DataType::kInt64:
    case DataType::kUint64: return 1ULL << 40;
    case DataType::kHalf: return 2048;
    case DataType::kFloat: return 1ULL << 24;
    case DataType::kDouble: return 1ULL << 40;
    case DataType::kBfloat16: return 256;
    case DataType::kF8e4m3: return 16;
    case DataType::kF8e5m2: return 8;
  }
  return 1;
}

int max_power_of_two(DataType type) {
  switch (type) {
    case DataType::kInt8: return 6;
    case DataType::kUint8: return 7;
    case DataType::kInt32: return 30;
    case DataType::kUint32: return 31;
    case DataType::kHalf: return 15;
    case DataType::kF8e4m3: return 8;
    case DataType::kF8e5m2: return 15;
    default: return 62;
  }
}

PatternParams make_pattern(CollectiveOp op, DataType type, RedOp redop, int nranks, std::uint32_t seed) {
  PatternParams p;
  p.nranks = nranks;
  p.element_size = static_cast<int>(type_size(type));
  p.is_float = type_is_float(type);
  p.seed = seed;
  if (!op_reduces(op)) {
    p.kind = static_cast<int>(PatternKind::kBits);
    p.float_mask = float_mask(type);
    return p;
  }
  const std::uint64_t exact = max_exact_integer(type);
  switch (redop) {
    case RedOp::kSum:
    case RedOp::kAvg:
    case RedOp::kMulSum: {
      p.kind = static_cast<int>(PatternKind::kSum);
      p.odd_ranks_double = redop == RedOp::kMulSum;
      p.divide_by_ranks = redop == RedOp::kAvg;
      // avg: values that are multiples of n make sum / n an integer, where the type has room for it.
      const bool scaled = redop == RedOp::kAvg && static_cast<std::uint64_t>(nranks) <= exact;
      p.scale = scaled ? nranks : 1;
      // Each contributor adds at most weight x (modulus - 1); the total must stay <= exact.
      const std::uint64_t weight = static_cast<std::uint64_t>(p.scale) * (p.odd_ranks_double ? 2 : 1);
      p.period = period_for(nranks, exact / weight);
      const std::uint64_t contributors = ceil_div(static_cast<std::uint64_t>(nranks), p.period);
      p.modulus = 1 + std::min<std::uint64_t>(63, exact / (weight * contributors));
      p.exact = !(redop == RedOp::kAvg && p.is_float && (!scaled || !is_power_of_two(nranks)));
      break;
    }
    case RedOp::kProd: {
      p.kind = static_cast<int>(PatternKind::kProd);
      // At least period 2, so the result depends on the index and a misplaced element shows.
      p.period = std::max<std::uint64_t>(2, period_for(nranks, static_cast<std::uint64_t>(max_power_of_two(type))));
      break;
    }
    case RedOp::kMax:
    case RedOp::kMin: {
      p.kind = static_cast<int>(redop == RedOp::kMax ? PatternKind::kMax : PatternKind::kMin);
      p.modulus = std::min<std::uint64_t>(exact + 1, 127);
      p.period = std::max(1, nranks / 2);
      if (type_is_signed_integer(type) || p.is_float) p.offset = static_cast<std::int64_t>(p.modulus / 2);
      break;
    }
  }
  return p;
}

double pattern_tolerance(DataType type, int nranks) {
  double epsilon = 0;
  switch (type) {
    case DataType::kHalf: epsilon = 1.0 / 1024; break;
    case DataType::kFloat: epsilon = 1.0 / (1 << 23); break;
    case DataType::kDouble: epsilon = 1.0 / 4503599627370496.0; break;
    case DataType::kBfloat16: epsilon = 1.0 / 128; break;
    case DataType::kF8e4m3: epsilon = 1.0 / 8; break;
    case DataType::kF8e5m2: epsilon = 1.0 / 4; break;
    default: return 0;
  }
  // Each of the n pre-multiplied terms and each addition rounds once.
  return (2.0 * nranks + 1) * epsilon;
}

std::vector<OutputCheck> output_checks(CollectiveOp op, int rank, int nranks, int root, const CollectiveCounts& counts,
                                       bool in_place) {
  if (op != CollectiveOp::kAlltoAllv) return {output_check(op, rank, nranks, root, counts, in_place)};
  std::vector<OutputCheck> checks;
  if (in_place || !counts.peer_bytes) return checks;  // nccl-tests does not check in-place alltoallv either
  std::uint64_t offset = 0;
  for (int source = 0; source < nranks; ++source) {
    const std::uint64_t count = peer_elements(counts, source, rank, nranks);
    if (count == 0) continue;
    OutputCheck check;
    check.checked = true;
    check.offset = offset;
    check.count = count;
    check.fixed_rank = source;
    for (int earlier = 0; earlier < rank; ++earlier) check.index_offset += peer_elements(counts, source, earlier, nranks);
    checks.push_back(check);
    offset += count;
  }
  return checks;
}

}  // namespace linkscope::coll
