#include <gtest/gtest.h>

#include "model/json_read.hpp"
#include "model/runtime.hpp"
#include "runtime/nccl_log.hpp"
#include "runtime/nccl_tuning_log.hpp"
#include "support/run_command.hpp"

namespace linkscope::runtime {
namespace {

// Lines as NCCL 2.28.3's enqueue.cc and symmetric_sched.cc print them (rank 0, NCCL_DEBUG_SUBSYS=TUNING).
const char* const kLog =
    "vm:2889:2900 [0] NCCL INFO comm 0x5621481adae0 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0\n"
    "vm:2889:2889 [0] NCCL INFO AllReduce: 67108864 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}\n"
    "vm:2889:2889 [0] NCCL INFO AllReduce: 67108864 Bytes -> Algo RING proto SIMPLE channel{Lo..Hi}={0..23}\n"
    "vm:2889:2889 [0] NCCL INFO AllReduce: 8 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..0}\n"
    "vm:2889:2889 [0] NCCL INFO AllGather: 524288 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..23}\n"
    "vm:2889:2889 [0] NCCL INFO ReduceScatter: 33554432 Bytes -> Algo PAT proto SIMPLE channel{Lo..Hi}={2..5}\n"
    "vm:2889:2889 [0] NCCL INFO AllReduce [Symmetric]: 1048576 Bytes -> Kernel AllReduce_AGxLL_R nchannels 16 "
    "nthreads 512 nWorks 1\n"
    "vm:2889:2889 [0] NCCL INFO AllReduce: junk Bytes -> Algo RING\n";

TEST(NcclTuningLog, ParsesEveryCallOnceWithCounts) {
  const NcclRuntimeInfo info = parse_nccl_log(kLog);
  ASSERT_EQ(info.tuning.size(), 5u);
  const auto& big = info.tuning[0];
  EXPECT_EQ(big.collective, "all_reduce");
  EXPECT_EQ(big.bytes, 67108864u);
  EXPECT_EQ(big.size_bytes, 67108864u);
  EXPECT_EQ(big.algorithm, "Ring");
  EXPECT_EQ(big.protocol, "Simple");
  EXPECT_EQ(big.channels(), 24);
  EXPECT_EQ(big.calls, 2);
  EXPECT_EQ(info.tuning[1].channels(), 1);
  EXPECT_EQ(info.tuning[1].protocol, "LL");
  // AllGather and ReduceScatter print the per-rank bytes: nccl-tests' size is x nRanks.
  EXPECT_EQ(info.tuning[2].collective, "all_gather");
  EXPECT_EQ(info.tuning[2].bytes, 524288u);
  EXPECT_EQ(info.tuning[2].size_bytes, 2u * 524288u);
  EXPECT_EQ(info.tuning[3].algorithm, "PAT");
  EXPECT_EQ(info.tuning[3].channel_lo, 2);
  EXPECT_EQ(info.tuning[3].channels(), 4);
  EXPECT_EQ(info.tuning[4].kernel, "AllReduce_AGxLL_R");
  EXPECT_EQ(info.tuning[4].algorithm, "Symmetric");
  EXPECT_EQ(info.tuning[4].channels(), 16);
  ASSERT_EQ(model::tuning_calls(info, "all_reduce", 67108864).size(), 1u);
  EXPECT_TRUE(model::tuning_calls(info, "all_reduce", 4096).empty());
}

TEST(NcclTuningLog, PerRankSizeUnknownWithoutTheCommunicatorsRanks) {
  const auto call = parse_tuning_line("AllGather: 1024 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..1}", std::nullopt);
  ASSERT_TRUE(call.has_value());
  EXPECT_EQ(call->bytes, 1024u);
  EXPECT_EQ(call->size_bytes, 0u);
  EXPECT_FALSE(parse_tuning_line("Pattern 4, crossNic 0, nChannels 12", 2).has_value());
  EXPECT_FALSE(parse_tuning_line("AllReduce: 8 Bytes -> Algo RING proto", 2).has_value());
}

// "%s [Copy Engine]: %ld Bytes -> cudaMemcpy%s" (enqueue.cc, 2.29.7 and 2.30.3) and "%s [Hierarchical CE]: %ld Bytes ->
// RMA proxy + CE" (ce_coll.cc, 2.30.7); lines written for this test from those format strings.
TEST(NcclTuningLog, CopyEngineCollectivesOf229And230) {
  const auto ce = parse_tuning_line("AllGather [Copy Engine]: 16777216 Bytes -> cudaMemcpy; CE synchronization with NVLS", 8);
  ASSERT_TRUE(ce.has_value());
  EXPECT_EQ(ce->collective, "all_gather");
  EXPECT_EQ(ce->algorithm, "CopyEngine");
  EXPECT_EQ(ce->kernel, "cudaMemcpy");
  EXPECT_EQ(ce->protocol, "");
  EXPECT_EQ(ce->channels(), 0);
  EXPECT_EQ(ce->size_bytes, 8u * 16777216u);
  const auto hierarchical = parse_tuning_line("AllGather [Hierarchical CE]: 4096 Bytes -> RMA proxy + CE", 2);
  ASSERT_TRUE(hierarchical.has_value());
  EXPECT_EQ(hierarchical->kernel, "RMA proxy + CE");
}

// Numbers past their field's range are no call (strtoull saturated and the channel cast wrapped before).
TEST(NcclTuningLog, OutOfRangeNumbersAreNoCall) {
  EXPECT_FALSE(parse_tuning_line("AllReduce: 99999999999999999999999 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..1}", 2));
  EXPECT_FALSE(parse_tuning_line("AllReduce: 8 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..4294967296}", 2));
  EXPECT_FALSE(parse_tuning_line("AllReduce [Symmetric]: 8 Bytes -> Kernel K nchannels 2147483648 nthreads 1", 2));
  // Channel ranges NCCL cannot print: Hi below Lo, or past any channel count (channels() would overflow).
  EXPECT_FALSE(parse_tuning_line("AllReduce: 8 Bytes -> Algo RING proto LL channel{Lo..Hi}={5..4}", 2));
  EXPECT_FALSE(parse_tuning_line("AllReduce: 8 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..2147483647}", 2));
  // bytes x ranks past 2^64: the whole-buffer size stays unknown instead of wrapping.
  const auto huge = parse_tuning_line("AllGather: 18446744073709551615 Bytes -> Algo RING proto LL channel{Lo..Hi}={0..1}", 4);
  ASSERT_TRUE(huge.has_value());
  EXPECT_EQ(huge->size_bytes, 0u);
}

TEST(NcclTuningLog, NamesAsTheTunerTablesSpellThem) {
  EXPECT_EQ(tuner_algorithm_name("COLLNET_DIRECT"), "CollNetDirect");
  EXPECT_EQ(tuner_algorithm_name("NVLS_TREE"), "NVLSTree");
  EXPECT_EQ(tuner_algorithm_name("TREE"), "Tree");
  EXPECT_EQ(tuner_protocol_name("SIMPLE"), "Simple");
  EXPECT_EQ(tuner_protocol_name("LL128"), "LL128");
  EXPECT_EQ(collective_name("ReduceScatter"), "reduce_scatter");
  EXPECT_EQ(collective_name("Gather"), "Gather");
}

TEST(NcclTuningLog, RealLogWithoutTuningSubsystemHasNoCalls) {
  const NcclRuntimeInfo info = parse_nccl_log(test::read_text(test::fixture("h200x2/nccl-2.28.3-info.log")));
  EXPECT_GT(info.nccl_lines, 0u);
  EXPECT_TRUE(info.tuning.empty());
}

TEST(NcclTuningLog, RuntimeRunRoundTripKeepsTheCalls) {
  model::RuntimeRun run;
  run.context = "coll all_reduce";
  run.info = parse_nccl_log(kLog);
  const nlohmann::json document = model::to_json(run);
  ASSERT_EQ(document["tuning"].size(), 5u);
  EXPECT_EQ(document["tuning"][0]["channels"], 24);
  const model::RuntimeRun back = model::runtime_run_from_json(model::JsonReader::root(document, "run.json"));
  ASSERT_EQ(back.info.tuning.size(), 5u);
  EXPECT_EQ(back.info.tuning[0].calls, 2);
  EXPECT_EQ(back.info.tuning[2].size_bytes, 1048576u);
  EXPECT_EQ(back.info.tuning[4].kernel, "AllReduce_AGxLL_R");
  EXPECT_EQ(back.info.tuning[4].protocol, "");
  EXPECT_EQ(model::to_json(back), document);
  EXPECT_TRUE(back.extra.is_null() || back.extra.empty());
}

TEST(NcclTuningLog, WrongTypedCallIsAnError) {
  model::RuntimeRun run;
  run.info = parse_nccl_log(kLog);
  nlohmann::json document = model::to_json(run);
  document["tuning"][0]["bytes"] = "many";
  EXPECT_THROW(model::runtime_run_from_json(model::JsonReader::root(document, "run.json")), std::exception);
}

}  // namespace
}  // namespace linkscope::runtime
