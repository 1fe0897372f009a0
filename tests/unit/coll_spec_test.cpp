#include <gtest/gtest.h>

#include "plan/collective_spec.hpp"

namespace linkscope::coll {
namespace {

TEST(CollectiveSpec, ParsesOpsInNcclTestsSpellings) {
  EXPECT_EQ(parse_op("all_reduce"), CollectiveOp::kAllReduce);
  EXPECT_EQ(parse_op("allreduce"), CollectiveOp::kAllReduce);
  EXPECT_EQ(parse_op("all_reduce_perf"), CollectiveOp::kAllReduce);
  EXPECT_EQ(parse_op("AllGather"), CollectiveOp::kAllGather);
  EXPECT_EQ(parse_op("alltoall"), CollectiveOp::kAlltoAll);
  EXPECT_EQ(parse_op("sendrecv_perf"), CollectiveOp::kSendRecv);
  EXPECT_FALSE(parse_op("all_reduc").has_value());
  EXPECT_FALSE(parse_op("").has_value());
  for (CollectiveOp op : all_collective_ops()) EXPECT_EQ(parse_op(op_name(op)), op);
  EXPECT_EQ(all_collective_ops().size(), 11u);
}

TEST(CollectiveSpec, TypesMatchNcclEnumOrderAndSizes) {
  // The engine casts DataType to ncclDataType_t: ncclInt8 = 0 ... ncclFloat8e5m2 = 11.
  EXPECT_EQ(static_cast<int>(DataType::kInt8), 0);
  EXPECT_EQ(static_cast<int>(DataType::kFloat), 7);
  EXPECT_EQ(static_cast<int>(DataType::kBfloat16), 9);
  EXPECT_EQ(static_cast<int>(DataType::kF8e5m2), 11);
  EXPECT_EQ(type_size(DataType::kHalf), 2u);
  EXPECT_EQ(type_size(DataType::kDouble), 8u);
  EXPECT_EQ(type_size(DataType::kF8e4m3), 1u);
  EXPECT_EQ(parse_type("fp32"), DataType::kFloat);
  EXPECT_EQ(parse_type("bf16"), DataType::kBfloat16);
  EXPECT_FALSE(parse_type("float128").has_value());
  for (DataType t : all_data_types()) EXPECT_EQ(parse_type(type_name(t)), t);
  EXPECT_TRUE(type_needs_sm90(DataType::kF8e4m3));
  EXPECT_FALSE(type_needs_sm90(DataType::kBfloat16));
}

TEST(CollectiveSpec, RedOps) {
  EXPECT_EQ(static_cast<int>(RedOp::kAvg), 4);  // ncclAvg
  EXPECT_EQ(parse_red_op("mulsum"), RedOp::kMulSum);
  EXPECT_EQ(parse_red_op("MAX"), RedOp::kMax);
  EXPECT_FALSE(parse_red_op("xor").has_value());
}

TEST(CollectiveSpec, BusFactorsFromPerformanceMd) {
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveOp::kAllReduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveOp::kAllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveOp::kAllGather, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveOp::kAlltoAll, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveOp::kBroadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveOp::kSendRecv, 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(CollectiveOp::kAllReduce, 1), 0.0);  // nccl-tests prints 0 busbw for one rank
}

TEST(CollectiveSpec, BandwidthMatchesFixtureRows) {
  // all_reduce 4 GiB, 12401.7 us -> 346.32 GB/s (ncclt-all_reduce.txt).
  auto bw = collective_bandwidth(CollectiveOp::kAllReduce, 1073741824, 4, 12401.7e-6, 2);
  EXPECT_NEAR(bw.algbw_gbps, 346.32, 0.005);
  EXPECT_NEAR(bw.busbw_gbps, 346.32, 0.005);
  // all_gather 8 GiB total, count 1073741824 per rank, 14659.5 us -> algbw 585.96, busbw 292.98.
  bw = collective_bandwidth(CollectiveOp::kAllGather, 1073741824, 4, 14659.5e-6, 2);
  EXPECT_NEAR(bw.algbw_gbps, 585.96, 0.005);
  EXPECT_NEAR(bw.busbw_gbps, 292.98, 0.005);
  // alltoall 8 GiB, count 1073741824, 12714.3 us -> 675.61 / 337.81.
  bw = collective_bandwidth(CollectiveOp::kAlltoAll, 1073741824, 4, 12714.3e-6, 2);
  EXPECT_NEAR(bw.algbw_gbps, 675.61, 0.005);
  EXPECT_NEAR(bw.busbw_gbps, 337.81, 0.005);
  bw = collective_bandwidth(CollectiveOp::kGather, 1000, 1, 0.0, 2);
  EXPECT_EQ(bw.algbw_gbps, 0.0);
}

TEST(CollectiveSpec, CountsPerOp) {
  // 1 MiB of float over 4 ranks.
  const std::uint64_t mib = 1 << 20;
  auto c = collective_counts(CollectiveOp::kAllReduce, mib, 4, 4);
  EXPECT_EQ(c.param_count, mib / 4);
  EXPECT_EQ(c.send_bytes(), mib);
  EXPECT_EQ(c.recv_bytes(), mib);
  c = collective_counts(CollectiveOp::kReduceScatter, mib, 4, 4);
  EXPECT_EQ(c.param_count, mib / 16);
  EXPECT_EQ(c.send_bytes(), mib);
  EXPECT_EQ(c.recv_bytes(), mib / 4);
  EXPECT_EQ(c.recv_in_place_offset, mib / 16);
  c = collective_counts(CollectiveOp::kScatter, mib, 4, 4);
  EXPECT_EQ(c.send_bytes(), mib);
  EXPECT_EQ(c.recv_bytes(), mib / 4);
  EXPECT_EQ(c.recv_in_place_offset, mib / 16);
  c = collective_counts(CollectiveOp::kGather, mib, 4, 4);
  EXPECT_EQ(c.send_bytes(), mib / 4);
  EXPECT_EQ(c.recv_bytes(), mib);
  EXPECT_EQ(c.send_in_place_offset, mib / 16);
  c = collective_counts(CollectiveOp::kAlltoAll, mib, 4, 4);
  EXPECT_EQ(c.param_count, mib / 16);
  EXPECT_EQ(c.size_bytes(), mib);
  // 16-byte granule per rank: 96 bytes of float over 4 ranks = 6 elements each -> 4 (16 bytes).
  c = collective_counts(CollectiveOp::kAllGather, 96, 4, 4);
  EXPECT_EQ(c.param_count, 4u);
  EXPECT_EQ(c.size_bytes(), 64u);
  // double: granule of 2 elements.
  c = collective_counts(CollectiveOp::kAllGather, 48, 8, 2);
  EXPECT_EQ(c.param_count, 2u);
}

TEST(CollectiveSpec, RoundingNotesSayWhatChanged) {
  auto c = collective_counts(CollectiveOp::kAllGather, 16, 4, 2);
  auto note = rounding_note(CollectiveOp::kAllGather, 16, c, 2);
  ASSERT_TRUE(note.has_value());
  EXPECT_NE(note->find("measuring 0 bytes"), std::string::npos) << *note;
  c = collective_counts(CollectiveOp::kAllReduce, 10, 4, 2);
  note = rounding_note(CollectiveOp::kAllReduce, 10, c, 2);
  ASSERT_TRUE(note.has_value());
  EXPECT_NE(note->find("4-byte elements"), std::string::npos) << *note;
  c = collective_counts(CollectiveOp::kAllReduce, 1024, 4, 2);
  EXPECT_FALSE(rounding_note(CollectiveOp::kAllReduce, 1024, c, 2).has_value());
}

TEST(CollectiveSpec, OpProperties) {
  EXPECT_TRUE(op_is_rooted(CollectiveOp::kBroadcast));
  EXPECT_TRUE(op_is_rooted(CollectiveOp::kScatter));
  EXPECT_FALSE(op_is_rooted(CollectiveOp::kAllReduce));
  EXPECT_TRUE(op_reduces(CollectiveOp::kReduceScatter));
  EXPECT_FALSE(op_reduces(CollectiveOp::kSendRecv));
  EXPECT_TRUE(op_prints_redop(CollectiveOp::kSendRecv));
  EXPECT_FALSE(op_checks_in_place(CollectiveOp::kAlltoAll));
  EXPECT_FALSE(op_checks_in_place(CollectiveOp::kSendRecv));
  EXPECT_TRUE(op_checks_in_place(CollectiveOp::kAllGather));
}

}  // namespace
}  // namespace linkscope::coll

namespace linkscope::coll {
namespace {

TEST(CollectiveSpec, HypercubeIsAnAllGatherWithItsOwnBandwidth) {
  EXPECT_EQ(parse_op("hypercube_perf"), CollectiveOp::kHypercube);
  EXPECT_EQ(op_name(CollectiveOp::kHypercube), "hypercube");
  // Counts as all_gather: a 16-byte-aligned share per rank.
  const auto h = collective_counts(CollectiveOp::kHypercube, 1000, 4, 4);
  const auto g = collective_counts(CollectiveOp::kAllGather, 1000, 4, 4);
  EXPECT_EQ(h.param_count, g.param_count);
  EXPECT_EQ(h.recv_count, g.recv_count);
  EXPECT_EQ(h.send_in_place_offset, g.send_in_place_offset);
  // algbw = count x size x (n - 1) / time, busbw = algbw (nccl-tests' HyperCubeGetBw).
  const Bandwidth bw = collective_bandwidth(CollectiveOp::kHypercube, 1000, 4, 1e-6, 4);
  EXPECT_DOUBLE_EQ(bw.algbw_gbps, 1000.0 * 4 * 3 / 1e9 / 1e-6);
  EXPECT_DOUBLE_EQ(bw.busbw_gbps, bw.algbw_gbps);
  EXPECT_DOUBLE_EQ(collective_bandwidth(CollectiveOp::kHypercube, 1000, 4, 1e-6, 1).algbw_gbps, 0.0);
  EXPECT_TRUE(op_needs_power_of_two_ranks(CollectiveOp::kHypercube));
  EXPECT_FALSE(op_needs_power_of_two_ranks(CollectiveOp::kAllGather));
}

TEST(CollectiveSpec, RedopColumnAsNcclTestsPrintsIt) {
  EXPECT_EQ(nccl_tests_redop_column(CollectiveOp::kAllReduce, RedOp::kMax), "max");
  EXPECT_EQ(nccl_tests_redop_column(CollectiveOp::kSendRecv, RedOp::kSum), "sum");
  EXPECT_EQ(nccl_tests_redop_column(CollectiveOp::kAllGather, RedOp::kSum), "none");
  EXPECT_EQ(nccl_tests_redop_column(CollectiveOp::kHypercube, RedOp::kSum), "");
}

}  // namespace
}  // namespace linkscope::coll
