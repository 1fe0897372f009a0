#include "plan/p2p_plan.hpp"

#include <gtest/gtest.h>

#include "core/error.hpp"
#include "plan/p2p_options.hpp"

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
  const auto write_defaults = expand_sm_shapes({}, default_sm_shape(Initiator::kSource));
  ASSERT_EQ(write_defaults.size(), 1u);
  EXPECT_EQ(write_defaults.front().label(), "bulk 32Kx4 c1");
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

TEST(P2pPlan, RepeatListIsOneMoreDimensionAndShowsInTheLabel) {
  SmShapeLists lists;
  lists.variants = {"vec_nc", "bulk"};
  lists.repeats = {SmRepeat::kKernel, SmRepeat::kLaunch};
  const auto shapes = expand_sm_shapes(lists);
  ASSERT_EQ(shapes.size(), 4u);
  EXPECT_EQ(shapes[0].label(), "vec_nc t1024 c2 u4 kernel");
  EXPECT_EQ(shapes[1].label(), "vec_nc t1024 c2 u4 launch");
  EXPECT_EQ(shapes[3].label(), "bulk 16Kx4 c2 launch");
  EXPECT_EQ(SmKernelShape{}.label(), "vec_nc t1024 c2 u4") << "auto adds nothing to the label";
  EXPECT_EQ(sm_repeat_from_string("auto"), SmRepeat::kAuto);
  EXPECT_THROW(sm_repeat_from_string("twice"), UsageError);
}

TEST(P2pPlan, CopiesRepeatInOneLaunchFromTheThresholdUnlessLoadsCouldHitL1) {
  const int sms = 132;
  EXPECT_FALSE(repeat_in_kernel(SmRepeat::kAuto, kRepeatInKernelMinBytes - 16, false, sms));
  EXPECT_TRUE(repeat_in_kernel(SmRepeat::kAuto, kRepeatInKernelMinBytes, false, sms));
  EXPECT_TRUE(repeat_in_kernel(SmRepeat::kAuto, 512ull << 20, false, sms));
  EXPECT_FALSE(repeat_in_kernel(SmRepeat::kLaunch, 512ull << 20, false, sms));
  EXPECT_TRUE(repeat_in_kernel(SmRepeat::kKernel, 4096, false, sms));
  // Plain loads allocate in L1: a repeat must not find its lines there, so each SM's share must be >= 2 x 256 KiB.
  const std::uint64_t l1_safe = 2 * kLargestL1BytesPerSm * sms;
  EXPECT_FALSE(repeat_in_kernel(SmRepeat::kKernel, l1_safe - 16, true, sms));
  EXPECT_TRUE(repeat_in_kernel(SmRepeat::kKernel, l1_safe, true, sms));
  EXPECT_FALSE(repeat_in_kernel(SmRepeat::kAuto, 64ull << 20, true, sms)) << "64 MiB / 132 SMs < 512 KiB";
  EXPECT_TRUE(repeat_in_kernel(SmRepeat::kAuto, 512ull << 20, true, sms));
  EXPECT_TRUE(loads_allocate_in_l1("vec"));
  for (const char* variant : {"vec_cg", "vec_nc", "vec_nc256", "bulk"}) EXPECT_FALSE(loads_allocate_in_l1(variant));
}

TEST(P2pPlan, EachModeHasItsDefaultShape) {
  EXPECT_EQ(default_sm_shape(Initiator::kDestination), SmKernelShape{});
  EXPECT_EQ(default_sm_shape(Initiator::kDestination).label(), "vec_nc t1024 c2 u4");
  EXPECT_EQ(default_sm_shape(Initiator::kSource).label(), "bulk 32Kx4 c1");
  CopyCommandOptions o;
  o.mode = "write";
  ASSERT_EQ(sm_shapes(o).size(), 1u);
  EXPECT_EQ(sm_shapes(o).front().label(), "bulk 32Kx4 c1");
  o.sm_kernel = "vec_nc";  // the write default's vec fields
  EXPECT_EQ(sm_shapes(o).front().label(), "vec_nc t1024 c1 u8");
  o.mode = "read";
  o.sm_kernel = "";
  o.sm_repeat = "launch,kernel";
  ASSERT_EQ(sm_shapes(o).size(), 2u);
  EXPECT_EQ(sm_shapes(o)[0].label(), "vec_nc t1024 c2 u4 launch");
  o.sm_repeat = "never";
  EXPECT_THROW(sm_shapes(o), UsageError);
}

TEST(P2pPlan, ChaseVariantsExpandAndSayWhetherTheyLeaveL1) {
  EXPECT_EQ(kDefaultChase.label(), "random cg 2M");
  EXPECT_EQ(expand_chase_specs({}), std::vector<ChaseSpec>{kDefaultChase});
  const auto specs = expand_chase_specs({{"random", "stride"}, {"cg", "ca", "plain"}, {}});
  ASSERT_EQ(specs.size(), 6u);
  EXPECT_EQ(specs[0].label(), "random cg 2M");
  EXPECT_EQ(specs[5].label(), "stride plain 2M");
  for (const auto& spec : specs) EXPECT_TRUE(spec.leaves_l1()) << spec.label();
  const ChaseSpec small_ca{ChaseOrder::kStride, ChaseLoad::kCa, 64 << 10};
  EXPECT_FALSE(small_ca.leaves_l1()) << "a 64 KiB lap fits L1: ca loads can hit there";
  EXPECT_TRUE((ChaseSpec{ChaseOrder::kStride, ChaseLoad::kCg, 64 << 10}.leaves_l1()));
  EXPECT_TRUE((ChaseSpec{ChaseOrder::kRandom, ChaseLoad::kPlain, 1 << 20}.leaves_l1()));
  EXPECT_THROW(expand_chase_specs({{"zigzag"}, {}, {}}), UsageError);
  EXPECT_THROW(expand_chase_specs({{}, {"cv"}, {}}), UsageError);
  EXPECT_THROW(expand_chase_specs({{}, {}, {1000}}), UsageError);      // not whole 128-byte lines
  EXPECT_THROW(expand_chase_specs({{}, {}, {512}}), UsageError);       // below 1K
  EXPECT_THROW(expand_chase_specs({{}, {}, {2ull << 30}}), UsageError);  // above 1G
  P2pTuningOptions o;
  o.chase_orders = "stride";
  o.chase_footprints = "2M,64M";
  const auto from_options = chase_specs(o);
  ASSERT_EQ(from_options.size(), 2u);
  EXPECT_EQ(from_options[1].label(), "stride cg 64M");
  EXPECT_EQ(span_sync_from_string("event"), SpanSync::kEvent);
  EXPECT_THROW(span_sync_from_string("barrier"), UsageError);
}

TEST(P2pPlan, MemoryNeedsTwoBuffersPerNamedGpu) {
  P2pRequest request;
  request.sizes = {1024, 1ull << 30};
  request.pairs = parse_pairs("0>1");
  request.measure_latency = false;
  const auto needed = p2p_bytes_per_device(request);
  ASSERT_EQ(needed.size(), 2u);
  EXPECT_EQ(needed.at(0), 2ull << 30);
  EXPECT_EQ(needed.at(1), 2ull << 30);
  // With latency: one chain per order and footprint on every GPU (the load does not change the chain).
  request.measure_latency = true;
  request.chase_specs = expand_chase_specs({{"random", "stride"}, {"cg", "ca"}, {2 << 20}});
  EXPECT_EQ(p2p_bytes_per_device(request).at(0), (2ull << 30) + 2 * (2ull << 20));
  request.measure_latency = false;
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
  request.sm_shapes = expand_sm_shapes({{"vec_nc256"}, {1024}, {1}, {16}, {}, {}, {SmRepeat::kLaunch}});
  request.chase_specs = expand_chase_specs({{"stride"}, {"plain"}, {64 << 20}});
  request.span_sync = SpanSync::kEvent;
  request.cpu_node = 1;
  const P2pRequest back = p2p_request_from_json(to_json(request));
  EXPECT_EQ(back.sizes, request.sizes);
  EXPECT_EQ(back.pairs, request.pairs);
  EXPECT_EQ(back.methods.size(), 1u);
  EXPECT_EQ(back.initiator, Initiator::kSource);
  EXPECT_TRUE(back.bidirectional);
  ASSERT_EQ(back.sm_shapes.size(), 1u);
  EXPECT_EQ(back.sm_shapes[0].label(), "vec_nc256 t1024 c1 u16 launch");
  EXPECT_EQ(back.chase_specs, request.chase_specs);
  EXPECT_EQ(back.span_sync, SpanSync::kEvent);
  EXPECT_EQ(back.cpu_node, 1);
  EXPECT_EQ(to_json(request)["sm_mode"], "write");
  EXPECT_EQ(to_json(request)["sm_repeat_in_kernel_min_bytes"], kRepeatInKernelMinBytes);
  // A file with an unknown value is bad input, not a bad option.
  auto config = to_json(request);
  config["pointer_chases"][0]["load"] = "cv";
  EXPECT_THROW(p2p_request_from_json(config), InputError);
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
