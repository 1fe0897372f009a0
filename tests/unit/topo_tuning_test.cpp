// NCCL 2.28.9's tuning model pieces: NCCL_ALGO/NCCL_PROTO lists, NCCL_PARAM integers, the tuning tables' rules and
// the tuner's choice per size (graph/tuning.cc, enqueue.cc), on hand-made inputs.
#include <gtest/gtest.h>

#include "topo/algo_choice.hpp"
#include "topo/algo_proto_list.hpp"
#include "topo/channel_setup.hpp"
#include "topo/comm_params.hpp"
#include "topo/communicator_model.hpp"
#include "topo/nccl_param.hpp"
#include "topo/tuning_model.hpp"

namespace linkscope::topo {
namespace {

const std::vector<const char*> kFuncs = {"Broadcast", "Reduce", "AllGather", "ReduceScatter", "AllReduce"};
const std::vector<const char*> kProtos = {"LL", "LL128", "Simple"};

std::vector<int> protos_after(const std::string& text, std::string* error = nullptr) {
  std::vector<int> enabled(kFuncs.size() * kProtos.size(), 7);
  const std::string message = parse_enable_list(text, kFuncs, kProtos, enabled);
  if (error) *error = message;
  return enabled;
}

TEST(TopoAlgoProtoList, FirstListForAllThenPerCollective) {
  // "LL,Simple" for every collective, then AllReduce everything but LL (names are case-insensitive).
  const auto enabled = protos_after("ll,SIMPLE;allreduce:^LL");
  EXPECT_EQ(std::vector<int>(enabled.begin(), enabled.begin() + 3), (std::vector<int>{1, 0, 1}));   // Broadcast
  EXPECT_EQ(std::vector<int>(enabled.begin() + 12, enabled.end()), (std::vector<int>{0, 1, 1}));     // AllReduce
}

TEST(TopoAlgoProtoList, UntouchedCollectivesKeepTheirValues) {
  const auto enabled = protos_after("reduce:LL128");
  EXPECT_EQ(enabled[0], 7);                                                                           // Broadcast
  EXPECT_EQ(std::vector<int>(enabled.begin() + 3, enabled.begin() + 6), (std::vector<int>{0, 1, 0}));  // Reduce
}

TEST(TopoAlgoProtoList, NcclsRefusals) {
  std::string error;
  protos_after("LL;Simple", &error);
  EXPECT_EQ(error, "All entries except the first must have a prefix: \"LL;Simple\"");
  protos_after(";Simple", &error);  // the first entry must also start the string
  EXPECT_EQ(error, "All entries except the first must have a prefix: \";Simple\"");
  protos_after("LL,fast", &error);
  EXPECT_EQ(error, "Unrecognized element token \"fast\" when parsing \"LL,fast\"");
  protos_after("alltoall:LL", &error);
  EXPECT_EQ(error, "Unrecognized prefix token \"alltoall\" when parsing \"alltoall:LL\"");
  protos_after("", &error);
  EXPECT_TRUE(error.empty());
}

TEST(TopoNcclParam, ReadLikeNcclLoadParam) {
  const auto env = Environment::from_map({{"A", "0x10"}, {"B", ""}, {"C", "99999999999999999999"}, {"D", "abc"}});
  auto param = read_nccl_int_param(env, "A", -2);
  EXPECT_EQ(param.value, 16);
  EXPECT_EQ(param.echo, "A set by environment to 16.");
  param = read_nccl_int_param(env, "B", -2);  // empty: the default, silently
  EXPECT_EQ(param.value, -2);
  EXPECT_TRUE(param.echo.empty());
  param = read_nccl_int_param(env, "C", -2);
  EXPECT_EQ(param.value, -2);
  EXPECT_TRUE(param.out_of_range);
  EXPECT_EQ(param.echo, "Invalid value 99999999999999999999 for C, using default -2.");
  param = read_nccl_int_param(env, "D", 5);  // no digits: strtoll's 0, and NCCL says so
  EXPECT_EQ(param.value, 0);
  EXPECT_FALSE(param.is_number);
  EXPECT_EQ(param.echo, "D set by environment to 0.");
  EXPECT_FALSE(read_nccl_int_param(env, "UNSET", 3).raw.has_value());
}

TEST(TopoChannelLimits, LegacyNamesAndCorrections) {
  auto params = resolve_comm_params(Environment::from_map({{"NCCL_MAX_NRINGS", "3"}}));
  std::string message;
  EXPECT_EQ(max_nchannels(params, message), 3);
  params = resolve_comm_params(Environment::from_map({{"NCCL_MAX_NRINGS", "3"}, {"NCCL_MAX_NCHANNELS", "200"}}));
  EXPECT_EQ(max_nchannels(params, message), 64);  // the new name wins, capped at MAXCHANNELS
  EXPECT_TRUE(message.empty());
  params = resolve_comm_params(Environment::from_map({{"NCCL_MIN_NCHANNELS", "100"}}));
  EXPECT_EQ(min_nchannels(params, message), 64);
  EXPECT_EQ(message, "User asked for a minimum of 100 channels, limiting to 64");
  params = resolve_comm_params(Environment::from_map({{"NCCL_MIN_NCHANNELS", "-7"}}));
  EXPECT_EQ(min_nchannels(params, message), 0);
}

// A 4-rank Ampere node whose ring and tree have 12 channels of 20 GB/s over NVLink (the Leonardo booster node).
TuningInputs ampere_nvlink_node() {
  TuningInputs in;
  in.n_ranks = 4;
  in.min_comp_cap = in.max_comp_cap = 80;
  in.cpu_arch = 1;
  in.cpu_vendor = 1;
  in.max_tree_pattern = kPatternBalancedTree;
  TuningGraph graph;
  graph.n_channels = 12;
  graph.bw_intra = graph.bw_inter = 20.0f;
  graph.type_intra = kPathNvl;
  graph.type_inter = kPathPix;
  graph.pattern = kPatternRing;
  in.graphs[kAlgoRing] = graph;
  graph.pattern = kPatternBalancedTree;
  in.graphs[kAlgoTree] = in.graphs[kAlgoPat] = graph;
  in.graphs[kAlgoCollnetDirect].pattern = kPatternCollnetDirect;
  in.graphs[kAlgoCollnetChain].pattern = kPatternTree;
  in.graphs[kAlgoNvls].pattern = in.graphs[kAlgoNvlsTree].pattern = kPatternNvls;
  return in;
}

TEST(TopoTuningModel, RingAndTreeRules) {
  const TuningModel model = tune_model(ampere_nvlink_node(), resolve_comm_params(Environment::from_map({})));
  ASSERT_TRUE(model.computed);
  const auto& bw = model.bandwidth_gbps;
  const auto& lat = model.latency_us;
  // Ring Simple AllReduce: 12 x 20 GB/s bus bandwidth, algorithm bandwidth x n/(2(n-1)).
  EXPECT_FLOAT_EQ(bw[kFuncAllReduce][kAlgoRing][kProtoSimple], 160.0f);
  // Ring LL: half the bus bandwidth, capped at 87.7 GB/s on Ampere.
  EXPECT_FLOAT_EQ(bw[kFuncAllReduce][kAlgoRing][kProtoLl], static_cast<float>(87.7 * (4.0 / 6)));
  // Tree Simple AllReduce: min(240 x 0.92, 12 x 24.0) x 0.5.
  EXPECT_FLOAT_EQ(bw[kFuncAllReduce][kAlgoTree][kProtoSimple], 110.4f);
  // Latency: base + steps x per-hop NVLink latency (Ring Simple: 8.4 + 6 x 3.4).
  EXPECT_FLOAT_EQ(lat[kFuncAllReduce][kAlgoRing][kProtoSimple], 28.8f);
  // Broadcast rings with different channels pay nsteps x the tree's Simple latency.
  EXPECT_FLOAT_EQ(lat[kFuncBroadcast][kAlgoRing][kProtoSimple], 8.4f + 4 * 4.0f);
  // CollNet is off: no bandwidth, but NCCL still computes and prints its latency.
  EXPECT_EQ(bw[kFuncAllReduce][kAlgoCollnetDirect][kProtoSimple], 0.0f);
  EXPECT_FLOAT_EQ(lat[kFuncAllReduce][kAlgoCollnetDirect][kProtoSimple], static_cast<float>(2 * (3.7 + 3 * 0.4) + 31));
  EXPECT_EQ(model.thread_thresholds[kAlgoRing][kProtoLl], 8 * 4);  // LL per-thread bytes x ranks
  EXPECT_EQ(model.max_threads[kAlgoRing][kProtoSimple], 512);
}

TEST(TopoTuningModel, ProtocolAndThreadVariables) {
  const auto env = Environment::from_map({{"NCCL_PROTO", "^LL"}, {"NCCL_NTHREADS", "100"},
                                          {"NCCL_THREAD_THRESHOLDS", "1 2 -1 4"}});
  const TuningModel model = tune_model(ampere_nvlink_node(), resolve_comm_params(env));
  EXPECT_TRUE(model.show_enable_matrix);
  EXPECT_EQ(model.proto_enable[kFuncAllReduce][kProtoLl], 0);
  EXPECT_EQ(model.proto_enable[kFuncAllReduce][kProtoLl128], 1);  // named explicitly: no longer "2"
  EXPECT_EQ(model.bandwidth_gbps[kFuncAllReduce][kAlgoRing][kProtoLl], 0.0f);
  EXPECT_EQ(model.nthreads_messages.front(), "Invalid NCCL_NTHREADS 100 (must be a multiple of 32)");
  EXPECT_EQ(model.max_threads[kAlgoRing][kProtoSimple], 512);  // an invalid count falls back to the maximum
  EXPECT_EQ(model.thread_thresholds[kAlgoTree][kProtoLl], 1);
  EXPECT_EQ(model.thread_thresholds[kAlgoTree][kProtoSimple], 64);  // negative: keeps the default
  EXPECT_EQ(model.thread_thresholds[kAlgoRing][kProtoLl], 4);
}

TEST(TopoTuningModel, RefusedAlgoList) {
  const TuningModel model =
      tune_model(ampere_nvlink_node(), resolve_comm_params(Environment::from_map({{"NCCL_ALGO", "Ring;Tree"}})));
  EXPECT_FALSE(model.computed);
  EXPECT_EQ(model.error_variable, "NCCL_ALGO");
  EXPECT_EQ(model.error, "All entries except the first must have a prefix: \"Ring;Tree\"");
}

TEST(TopoAlgoChoice, LowestTimeThenFewerChannelsForSmallSizes) {
  const TuningModel model = tune_model(ampere_nvlink_node(), resolve_comm_params(Environment::from_map({})));
  const ChoiceContext context{4, 24, false};
  const AlgoChoice small = choose_algorithm(model, context, kFuncAllReduce, 8);
  ASSERT_TRUE(small.ok);
  EXPECT_EQ(small.algorithm, kAlgoRing);
  EXPECT_EQ(small.protocol, kProtoLl);
  EXPECT_EQ(small.channels, 1);  // 8 bytes < channels x 512 threads x 32 bytes until one channel is left
  EXPECT_FLOAT_EQ(small.time_us, 10.2f + 8 / (1000 * static_cast<float>(87.7 * (4.0 / 6))));
  const AlgoChoice large = choose_algorithm(model, context, kFuncAllReduce, uint64_t{1} << 30);
  EXPECT_EQ(large.algorithm, kAlgoRing);
  EXPECT_EQ(large.protocol, kProtoSimple);
  EXPECT_EQ(large.channels, 24);
  EXPECT_NEAR(large.busbw_gbps, large.algbw_gbps * 1.5, 1e-9);  // 2(n-1)/n with 4 ranks

  // Nothing left to choose: invalid usage when NCCL_ALGO/NCCL_PROTO are set.
  TuningModel none = model;
  for (auto& per_algo : none.bandwidth_gbps[kFuncBroadcast]) per_algo.fill(0.0f);
  const AlgoChoice refused = choose_algorithm(none, ChoiceContext{4, 24, true}, kFuncBroadcast, 8);
  EXPECT_FALSE(refused.ok);
  EXPECT_EQ(refused.nccl_result, 5);
  EXPECT_STREQ(nccl_result_text(refused.nccl_result), "invalid usage (run with NCCL_DEBUG=WARN for details)");
}

TEST(TopoAlgoChoice, BytesTheTunerSeesForEachSize) {
  // Powers of two on 2, 4 or 8 ranks: the size itself, whatever the element type.
  EXPECT_EQ(tuner_bytes(kFuncAllGather, 8, 8), 8u);
  EXPECT_EQ(tuner_bytes(kFuncReduceScatter, 8, 16), 16u);  // int8: 16 / 32 is not whole in float32
  EXPECT_EQ(tuner_bytes(kFuncAllReduce, 3, 8), 8u);
  // Per-rank counts of AllGather / ReduceScatter are rounded down.
  EXPECT_EQ(tuner_bytes(kFuncAllGather, 3, 8), 6u);
  EXPECT_EQ(tuner_bytes(kFuncReduceScatter, 3, 1024), 1023u);
  EXPECT_EQ(tuner_bytes(kFuncReduceScatter, 3, 12), 12u);  // float32: 1 element per rank
  EXPECT_EQ(tuner_bytes(kFuncAllGather, 16, 8), 0u);
  EXPECT_EQ(tuner_bytes(kFuncBroadcast, 16, 8), 8u);
}

TEST(TopoAlgoChoice, CollectivesAndTheirTuningFunctions) {
  EXPECT_EQ(tuning_func(coll::CollectiveOp::kReduceScatter), kFuncReduceScatter);
  EXPECT_EQ(collective_op(kFuncBroadcast), coll::CollectiveOp::kBroadcast);
  EXPECT_FALSE(tuning_func(coll::CollectiveOp::kSendRecv).has_value());
}

}  // namespace
}  // namespace linkscope::topo
