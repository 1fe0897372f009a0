// The host-only decisions of a collective run (plan/collective_run_plan): which series run, which types the GPUs
// can run, which sizes fit their memory and how large the buffers are.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "plan/collective_run_plan.hpp"

namespace linkscope::coll {
namespace {

constexpr std::uint64_t kGiB = 1ULL << 30;

std::string usage_error_of(const std::function<void()>& body) {
  try {
    body();
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(CollRunPlan, SeriesKeysCrossTypesReductionsAndRoots) {
  CollOptions reduce;
  reduce.op = "reduce";
  reduce.redop = "all";
  reduce.root = "-1";
  const CollPlan every_root = make_coll_plan(reduce);
  const auto keys = series_keys(every_root, 3);
  ASSERT_EQ(keys.size(), every_root.redops.size() * 3);
  EXPECT_EQ(keys[0].op, CollectiveOp::kReduce);
  EXPECT_EQ(keys[0].type, DataType::kFloat);
  EXPECT_EQ(keys[0].redop, every_root.redops[0]);
  EXPECT_EQ(keys[2].root, 2);                        // roots vary fastest
  EXPECT_EQ(keys[3].redop, every_root.redops[1]);    // then reductions
  EXPECT_EQ(keys[3].root, 0);

  CollOptions broadcast;
  broadcast.op = "broadcast";
  broadcast.datatype = "all";
  const CollPlan every_type = make_coll_plan(broadcast);
  const auto typed = series_keys(every_type, 2);
  ASSERT_EQ(typed.size(), every_type.types.size());  // no reduction to vary, one root
  EXPECT_EQ(typed[1].type, every_type.types[1]);

  reduce.root = "4";
  EXPECT_NE(usage_error_of([&] { series_keys(make_coll_plan(reduce), 4); }).find("root 4 (-r) is not a rank"),
            std::string::npos);
  const auto unrooted = series_keys(make_coll_plan(CollOptions{}), 8);
  ASSERT_EQ(unrooted.size(), 1u);
  EXPECT_EQ(unrooted[0].op, CollectiveOp::kAllReduce);
  EXPECT_EQ(unrooted[0].root, 0);
}

TEST(CollRunPlan, Fp8NeedsHopperUnlessEveryTypeWasAsked) {
  const std::vector<GpuCapability> hopper = {{0, "NVIDIA H200", 9, 0}};
  const std::vector<GpuCapability> ampere = {{0, "NVIDIA H200", 9, 0}, {1, "NVIDIA A100", 8, 0}};
  CollOptions o;
  o.datatype = "f8e4m3";
  CollPlan explicit_fp8 = make_coll_plan(o);
  keep_types_the_gpus_run(explicit_fp8, hopper);
  EXPECT_EQ(explicit_fp8.types, (std::vector<DataType>{DataType::kF8e4m3}));
  EXPECT_EQ(usage_error_of([&] { keep_types_the_gpus_run(explicit_fp8, ampere); }),
            "-d f8e4m3 needs compute capability 9.0; GPU 1 (NVIDIA A100) is 8.0");

  o.datatype = "all";
  CollPlan all = make_coll_plan(o);
  ASSERT_TRUE(all.all_types);
  const std::size_t every = all.types.size();
  keep_types_the_gpus_run(all, ampere);
  EXPECT_EQ(all.types.size(), every - 2);
  for (auto type : all.types) EXPECT_FALSE(type_needs_sm90(type)) << type_name(type);
}

TEST(CollRunPlan, SizesThatDoNotFitTheSmallestGpuAreDroppedWithANote) {
  CollOptions o;
  o.min_bytes = "1G";
  o.max_bytes = "8G";
  o.step_factor = 2;
  CollPlan plan = make_coll_plan(o);
  ASSERT_EQ(plan.sizes, (std::vector<std::uint64_t>{kGiB, 2 * kGiB, 4 * kGiB, 8 * kGiB}));
  // 16 GiB leaves 7 GiB per buffer: 8 GiB does not fit.
  const SizeFit fit = fit_sizes(plan, 2, 16 * kGiB);
  EXPECT_EQ(plan.sizes, (std::vector<std::uint64_t>{kGiB, 2 * kGiB, 4 * kGiB}));
  EXPECT_EQ(fit.reduced_max_bytes, 7 * kGiB);
  EXPECT_EQ(fit.buffer_bytes, 4 * kGiB);
  ASSERT_EQ(plan.notes.size(), 1u);
  EXPECT_EQ(plan.notes[0], "sizes above 7516192768 bytes do not fit the GPUs' memory and are skipped");

  CollPlan roomy = make_coll_plan(o);
  const SizeFit all = fit_sizes(roomy, 2, 141 * kGiB);
  EXPECT_EQ(roomy.sizes.size(), 4u);
  EXPECT_FALSE(all.reduced_max_bytes);
  EXPECT_EQ(all.buffer_bytes, 8 * kGiB);
  EXPECT_TRUE(roomy.notes.empty());

  CollPlan none = make_coll_plan(o);
  EXPECT_EQ(usage_error_of([&] { fit_sizes(none, 2, kGiB); }),
            "no size fits: the smallest GPU has 1073741824 bytes, so buffers are limited to 0 bytes");
}

TEST(CollRunPlan, BuffersHoldTheLargestSizeAsNcclTestsRoundsIt) {
  CollOptions o;
  o.op = "all_gather";
  o.min_bytes = "1M";
  o.max_bytes = "4M";
  CollPlan plan = make_coll_plan(o);
  // The receive buffer holds every rank's share: the whole gathered size.
  EXPECT_EQ(largest_buffer_bytes(plan, 4), 4ULL << 20);
  // 1000 bytes split into 3 ranks x a multiple of 16 bytes: 320 bytes each, 960 received.
  plan.sizes = {1000};
  EXPECT_EQ(largest_buffer_bytes(plan, 3), 960u);
  plan.sizes.clear();
  EXPECT_EQ(largest_buffer_bytes(plan, 4), 1u);
}

TEST(CollRunPlan, RoundingNotesNameTheSizesNcclTestsChanges) {
  CollOptions o;
  o.op = "all_gather";
  o.min_bytes = "1000";
  o.max_bytes = "1024";
  o.step_bytes = "24";
  o.step_factor = 1;
  const CollPlan plan = make_coll_plan(o);
  const auto notes = rounding_notes(plan, 2);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("all_gather: 1000 bytes do not split into 2 ranks"), std::string::npos) << notes[0];
  EXPECT_TRUE(rounding_notes(make_coll_plan(CollOptions{}), 1).empty());
}

}  // namespace
}  // namespace linkscope::coll

namespace linkscope::coll {
namespace {

TEST(CollectiveRunPlan, HypercubeNeedsAPowerOfTwoRanks) {
  CollPlan plan;
  plan.op = CollectiveOp::kHypercube;
  plan.types = {DataType::kFloat};
  plan.redops = {RedOp::kSum};
  EXPECT_EQ(series_keys(plan, 4).size(), 1u);
  EXPECT_EQ(series_keys(plan, 1).size(), 1u);
  try {
    series_keys(plan, 6);
    ADD_FAILURE() << "6 ranks accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("nRanks 6 is not a power of 2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace linkscope::coll
