#include "plan/p2p_plan.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace linkscope::plan {
namespace {

TEST(P2pPlan, OpsPerSampleMakeASampleLastTwentyMilliseconds) {
  EXPECT_EQ(ops_per_sample(2.7e-3), 8);    // 1 GiB at ~400 GB/s: ceil(7.4)
  EXPECT_EQ(ops_per_sample(20e-3), 1);
  EXPECT_EQ(ops_per_sample(50e-3), 1);
  EXPECT_EQ(ops_per_sample(1.36e-3), 15);  // 512 MiB
  EXPECT_EQ(ops_per_sample(200e-6), 100);
  EXPECT_EQ(ops_per_sample(2e-6), kMaxOpsPerSample);  // small copies: capped by the launch queue
  EXPECT_EQ(ops_per_sample(0), kMaxOpsPerSample);
  for (double t : {1e-7, 3e-6, 5e-5, 7e-4, 1.0}) {
    const int n = ops_per_sample(t);
    EXPECT_GE(n, 1);
    EXPECT_LE(n, kMaxOpsPerSample);
    EXPECT_TRUE(n * t >= kTargetSampleSeconds || n == kMaxOpsPerSample) << t;
  }
}

TEST(P2pPlan, ShapeListsExpandOnlyTheDimensionsAVariantUses) {
  SmShapeLists lists;
  lists.variants = {"vec", "bulk"};
  lists.unrolls = {4, 8};
  lists.threads = {256, 512};
  lists.bulk_stages = {2, 4};
  lists.ctas_per_sm = {1};
  const auto shapes = expand_sm_shapes(lists);
  // vec: 2 threads x 2 unrolls; bulk: 2 stage counts.
  ASSERT_EQ(shapes.size(), 6u);
  EXPECT_EQ(shapes.front().label(), "vec t256 c1 u4");
  EXPECT_EQ(shapes.back().label(), "bulk 16Kx4 c1");
  EXPECT_EQ(expand_sm_shapes({}).size(), 1u);
  EXPECT_EQ(expand_sm_shapes({}).front(), SmKernelShape{});
}

TEST(P2pPlan, ShapeValuesOutOfRangeAreUsageErrors) {
  EXPECT_THROW(expand_sm_shapes({{"warp"}, {}, {}, {}, {}, {}}), UsageError);
  EXPECT_THROW(expand_sm_shapes({{}, {100}, {}, {}, {}, {}}), UsageError);
  EXPECT_THROW(expand_sm_shapes({{}, {}, {}, {3}, {}, {}}), UsageError);
  EXPECT_THROW(expand_sm_shapes({{}, {}, {-1}, {}, {}, {}}), UsageError);
  EXPECT_THROW(expand_sm_shapes({{"bulk"}, {}, {}, {}, {1000}, {}}), UsageError);
  EXPECT_THROW(expand_sm_shapes({{"bulk"}, {}, {}, {}, {}, {9}}), UsageError);
  EXPECT_THROW(expand_sm_shapes({{"bulk"}, {}, {}, {}, {}, {1}}), UsageError);
}

TEST(P2pPlan, MemoryNeedsTwoBuffersPerNamedGpu) {
  P2pRequest request;
  request.sizes = {1024, 1ull << 30};
  request.pairs = parse_pairs("0>1");
  const auto needed = p2p_bytes_per_device(request);
  ASSERT_EQ(needed.size(), 2u);
  EXPECT_EQ(needed.at(0), 2ull << 30);
  EXPECT_EQ(needed.at(1), 2ull << 30);
  request.sizes = {1000};
  request.measure_host = false;
  EXPECT_EQ(p2p_bytes_per_device(request).at(0), 2u * 1008u);
  EXPECT_EQ(request.resolved_host_bytes(), 1000u);
  request.sizes = {8ull << 30};
  EXPECT_EQ(request.resolved_host_bytes(), 256ull << 20);
}

TEST(P2pPlan, MemoryShortfallSaysHowMuchIsFree) {
  EXPECT_EQ(memory_shortfall(0, 1ull << 30, 4ull << 30, 256ull << 20, "size 512M"), "");
  const std::string message = memory_shortfall(1, 4ull << 30, 3ull << 30, 256ull << 20, "size 2G");
  EXPECT_NE(message.find("GPU 1"), std::string::npos) << message;
  EXPECT_NE(message.find("3.0 GiB is free"), std::string::npos) << message;
}

TEST(P2pPlan, RequestConfigRoundTrips) {
  P2pRequest request;
  request.sizes = {1024, 4096};
  request.pairs = parse_pairs("0>1,1>0");
  request.methods = {CopyMethod::kSm};
  request.initiator = Initiator::kSource;
  request.bidirectional = true;
  request.sm_shapes = expand_sm_shapes({{"vec_nc256"}, {1024}, {1}, {16}, {}, {}});
  request.cpu_node = 1;
  const P2pRequest back = p2p_request_from_json(to_json(request));
  EXPECT_EQ(back.sizes, request.sizes);
  EXPECT_EQ(back.pairs, request.pairs);
  EXPECT_EQ(back.methods.size(), 1u);
  EXPECT_EQ(back.initiator, Initiator::kSource);
  EXPECT_TRUE(back.bidirectional);
  ASSERT_EQ(back.sm_shapes.size(), 1u);
  EXPECT_EQ(back.sm_shapes[0].label(), "vec_nc256 t1024 c1 u16");
  EXPECT_EQ(back.cpu_node, 1);
  EXPECT_EQ(to_json(request)["sm_mode"], "write");
}

}  // namespace
}  // namespace linkscope::plan

#include "plan/p2p_options.hpp"

namespace linkscope::plan {
namespace {

TEST(P2pOptions, ListsAndValidation) {
  EXPECT_EQ(parse_int_list("1, 2,4", "--x"), (std::vector<int>{1, 2, 4}));
  EXPECT_TRUE(parse_int_list("", "--x").empty());
  EXPECT_THROW(parse_int_list("1,a", "--x"), UsageError);
  EXPECT_THROW(parse_int_list("1,", "--x"), UsageError);
  EXPECT_EQ(parse_size_list("8K,16K", "--y"), (std::vector<std::uint64_t>{8192, 16384}));
  CopyCommandOptions o;
  o.sm_kernel = "vec,vec_nc256";
  o.sm_unroll = "4,8";
  EXPECT_EQ(sm_shapes(o).size(), 4u);
  o.target_ci = 0;
  EXPECT_THROW(sampling_policy(o), UsageError);
  o.target_ci = 0.01;
  o.max_time_s = -1;
  EXPECT_THROW(sampling_policy(o), UsageError);
  o.max_time_s = 1;
  o.forced_ops = kMaxOpsPerSample + 1;
  EXPECT_THROW(sampling_policy(o), UsageError);
  o.mode = "both";
  EXPECT_THROW(initiator_of(o), UsageError);
  o.format = "xml";
  EXPECT_THROW(check_output_options(o), UsageError);
}

}  // namespace
}  // namespace linkscope::plan
