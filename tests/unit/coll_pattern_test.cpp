#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "plan/collective_layout.hpp"
#include "plan/collective_pattern.hpp"

namespace linkscope::coll {
namespace {

const int kRankCounts[] = {1, 2, 3, 4, 7, 8, 9, 16, 17, 64, 100, 256, 1024};

// Brute force over every rank, independent of pattern_reduced's contributor stepping.
std::int64_t brute_force_reduce(const PatternParams& p, std::uint64_t index) {
  const auto kind = static_cast<PatternKind>(p.kind);
  std::int64_t acc = kind == PatternKind::kProd ? 1 : 0;
  for (int r = 0; r < p.nranks; ++r) {
    const std::int64_t v = pattern_integer(p, r, index);
    switch (kind) {
      case PatternKind::kSum: acc += pattern_weight(p, r) * v; break;
      case PatternKind::kProd: acc *= v; break;
      case PatternKind::kMax: acc = r == 0 ? v : std::max(acc, v); break;
      case PatternKind::kMin: acc = r == 0 ? v : std::min(acc, v); break;
      case PatternKind::kBits: break;
    }
  }
  return acc;
}

TEST(CollectivePattern, ReducedValueEqualsBruteForceForEveryTypeOpAndRankCount) {
  for (DataType type : all_data_types()) {
    for (RedOp redop : all_red_ops()) {
      for (int n : kRankCounts) {
        const PatternParams p = make_pattern(CollectiveOp::kAllReduce, type, redop, n, 7);
        for (std::uint64_t j = 0; j < 200; ++j) {
          ASSERT_EQ(pattern_reduced(p, j), brute_force_reduce(p, j))
              << type_name(type) << " " << red_op_name(redop) << " n=" << n << " j=" << j;
        }
      }
    }
  }
}

TEST(CollectivePattern, EveryPartialResultIsExactInTheType) {
  // Values are non-negative for sum-like ops, so every partial sum is <= the total; the total must be an
  // integer the type represents exactly. Products are powers of two within the type's range.
  for (DataType type : all_data_types()) {
    for (RedOp redop : all_red_ops()) {
      for (int n : kRankCounts) {
        const PatternParams p = make_pattern(CollectiveOp::kReduceScatter, type, redop, n, 3);
        for (std::uint64_t j = 0; j < 500; ++j) {
          const std::int64_t total = pattern_reduced(p, j);
          const auto kind = static_cast<PatternKind>(p.kind);
          if (kind == PatternKind::kSum) {
            ASSERT_GE(total, 0);
            ASSERT_LE(static_cast<std::uint64_t>(total), max_exact_integer(type))
                << type_name(type) << " " << red_op_name(redop) << " n=" << n;
          } else if (kind == PatternKind::kProd) {
            ASSERT_LE(std::log2(static_cast<double>(total)), max_power_of_two(type));
          } else {
            ASSERT_LE(static_cast<std::uint64_t>(std::llabs(total)), max_exact_integer(type));
          }
        }
      }
    }
  }
}

TEST(CollectivePattern, ValuesVaryWithTheIndexSoMisplacedDataIsCaught) {
  for (DataType type : all_data_types()) {
    for (RedOp redop : all_red_ops()) {
      for (int n : {2, 8, 64}) {
        const PatternParams p = make_pattern(CollectiveOp::kAllReduce, type, redop, n, 11);
        std::set<std::int64_t> distinct;
        for (std::uint64_t j = 0; j < 64; ++j) distinct.insert(pattern_reduced(p, j));
        EXPECT_GE(distinct.size(), 2u) << type_name(type) << " " << red_op_name(redop) << " n=" << n;
      }
    }
  }
}

TEST(CollectivePattern, AverageIsExactForPowerOfTwoRankCounts) {
  auto p = make_pattern(CollectiveOp::kAllReduce, DataType::kHalf, RedOp::kAvg, 4, 1);
  EXPECT_TRUE(p.exact);
  EXPECT_EQ(p.scale, 4);
  for (std::uint64_t j = 0; j < 100; ++j) EXPECT_EQ(pattern_reduced(p, j) % 4, 0);
  p = make_pattern(CollectiveOp::kAllReduce, DataType::kHalf, RedOp::kAvg, 3, 1);
  EXPECT_FALSE(p.exact);
  EXPECT_GT(pattern_tolerance(DataType::kHalf, 3), 0);
  p = make_pattern(CollectiveOp::kAllReduce, DataType::kInt32, RedOp::kAvg, 3, 1);
  EXPECT_TRUE(p.exact);  // integer avg divides exactly
  p = make_pattern(CollectiveOp::kAllReduce, DataType::kF8e5m2, RedOp::kAvg, 16, 1);
  EXPECT_FALSE(p.exact);  // no room for scaled values: the check falls back to a tolerance
  EXPECT_EQ(p.scale, 1);
}

TEST(CollectivePattern, DataMovementUsesFiniteBitPatterns) {
  const auto half = make_pattern(CollectiveOp::kAllGather, DataType::kHalf, RedOp::kSum, 2, 5);
  EXPECT_EQ(half.kind, static_cast<int>(PatternKind::kBits));
  for (std::uint64_t j = 0; j < 1000; ++j) {
    const std::uint64_t bits = pattern_bits(half, 1, j);
    EXPECT_LT(bits, 1u << 16);
    EXPECT_NE((bits >> 10) & 0x1f, 0x1fu) << "exponent all ones would be inf/NaN";
  }
  const auto e4m3 = make_pattern(CollectiveOp::kBroadcast, DataType::kF8e4m3, RedOp::kSum, 2, 5);
  for (std::uint64_t j = 0; j < 1000; ++j) EXPECT_NE(pattern_bits(e4m3, 0, j) & 0x7f, 0x7fu);
  const auto i64 = make_pattern(CollectiveOp::kAlltoAll, DataType::kInt64, RedOp::kSum, 2, 5);
  std::set<std::uint64_t> distinct;
  for (std::uint64_t j = 0; j < 1000; ++j) distinct.insert(pattern_bits(i64, 0, j));
  EXPECT_EQ(distinct.size(), 1000u);
  EXPECT_NE(pattern_bits(i64, 0, 5), pattern_bits(i64, 1, 5)) << "ranks differ";
}

TEST(CollectiveLayout, InPlaceBuffersFollowNcclTests) {
  const auto counts = collective_counts(CollectiveOp::kAllGather, 1024, 4, 4);  // 64 elements per rank
  const auto b = call_buffers(2, counts, true);
  EXPECT_EQ(b.send_buffer, BufferKind::kRecv);
  EXPECT_EQ(b.send_offset, 128u);
  EXPECT_EQ(b.recv_offset, 0u);
  const auto in = input_placement(CollectiveOp::kAllGather, 2, 4, 0, counts, true);
  EXPECT_TRUE(in.present);
  EXPECT_EQ(in.buffer, BufferKind::kRecv);
  EXPECT_EQ(in.offset, 128u);
  EXPECT_EQ(in.count, 64u);
  const auto out = output_check(CollectiveOp::kAllGather, 2, 4, 0, counts, true);
  EXPECT_TRUE(out.checked && out.block);
  EXPECT_EQ(out.count, 256u);
  EXPECT_EQ(out.block_count, 64u);
}

TEST(CollectiveLayout, ReduceScatterChecksTheRanksSlice) {
  const auto counts = collective_counts(CollectiveOp::kReduceScatter, 1024, 4, 4);
  const auto out = output_check(CollectiveOp::kReduceScatter, 3, 4, 0, counts, false);
  EXPECT_TRUE(out.reduce);
  EXPECT_EQ(out.offset, 0u);
  EXPECT_EQ(out.count, 64u);
  EXPECT_EQ(out.index_offset, 192u);
  const auto in_place = output_check(CollectiveOp::kReduceScatter, 3, 4, 0, counts, true);
  EXPECT_EQ(in_place.offset, 192u);
  const auto in = input_placement(CollectiveOp::kReduceScatter, 3, 4, 0, counts, false);
  EXPECT_EQ(in.count, 256u);
}

TEST(CollectiveLayout, RootedAndPointToPointOps) {
  const auto counts = collective_counts(CollectiveOp::kBroadcast, 4096, 4, 2);
  EXPECT_FALSE(input_placement(CollectiveOp::kBroadcast, 1, 2, 0, counts, false).present);
  EXPECT_TRUE(input_placement(CollectiveOp::kBroadcast, 0, 2, 0, counts, false).present);
  EXPECT_EQ(output_check(CollectiveOp::kBroadcast, 1, 2, 0, counts, false).fixed_rank, 0);
  EXPECT_FALSE(output_check(CollectiveOp::kReduce, 1, 2, 0, counts, false).checked);
  EXPECT_TRUE(output_check(CollectiveOp::kReduce, 0, 2, 0, counts, false).checked);
  const auto sr = collective_counts(CollectiveOp::kSendRecv, 4096, 4, 4);
  EXPECT_EQ(output_check(CollectiveOp::kSendRecv, 0, 4, 0, sr, false).fixed_rank, 3);
  EXPECT_FALSE(output_check(CollectiveOp::kSendRecv, 0, 4, 0, sr, true).checked);
  const auto a2a = collective_counts(CollectiveOp::kAlltoAll, 4096, 4, 4);
  const auto a = output_check(CollectiveOp::kAlltoAll, 1, 4, 0, a2a, false);
  EXPECT_TRUE(a.block);
  EXPECT_EQ(a.index_offset, 256u);
  EXPECT_FALSE(output_check(CollectiveOp::kAlltoAll, 1, 4, 0, a2a, true).checked);
  const auto sc = collective_counts(CollectiveOp::kScatter, 4096, 4, 4);
  EXPECT_FALSE(input_placement(CollectiveOp::kScatter, 2, 4, 1, sc, false).present);
  const auto s = output_check(CollectiveOp::kScatter, 2, 4, 1, sc, false);
  EXPECT_EQ(s.fixed_rank, 1);
  EXPECT_EQ(s.index_offset, 512u);
  EXPECT_FALSE(output_check(CollectiveOp::kGather, 2, 4, 1, sc, false).checked);
  // Zero-sized (rounded-away) sizes check nothing.
  const auto zero = collective_counts(CollectiveOp::kAllGather, 8, 4, 2);
  EXPECT_FALSE(output_check(CollectiveOp::kAllGather, 0, 2, 0, zero, false).checked);
}

}  // namespace
}  // namespace linkscope::coll
