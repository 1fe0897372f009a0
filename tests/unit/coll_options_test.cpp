#include <gtest/gtest.h>

#include "core/error.hpp"
#include "plan/collective_options.hpp"

namespace linkscope::coll {
namespace {

std::string usage_error(const CollOptions& o) {
  try {
    make_coll_plan(o);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "";
}

TEST(CollOptions, DefaultsSweepEightBytesToOneGiBAdaptively) {
  const CollPlan plan = make_coll_plan(CollOptions{});
  EXPECT_EQ(plan.op, CollectiveOp::kAllReduce);
  ASSERT_EQ(plan.types.size(), 1u);
  EXPECT_EQ(plan.types[0], DataType::kFloat);
  EXPECT_EQ(plan.sizes.front(), 8u);
  EXPECT_EQ(plan.sizes.back(), 1ULL << 30);
  EXPECT_EQ(plan.sizes.size(), 28u);
  EXPECT_FALSE(plan.fixed_iters.has_value());
  EXPECT_EQ(plan.reduction, RankTimeReduction::kMaximum);
  EXPECT_TRUE(plan.verify);
  EXPECT_FALSE(plan.in_place);
  EXPECT_TRUE(plan.notes.empty());
}

TEST(CollOptions, NcclTestsFormatImpliesFixedCountsAndBothPlacements) {
  CollOptions o;
  o.format = OutputFormat::kNcclTests;
  CollPlan plan = make_coll_plan(o);
  EXPECT_EQ(plan.fixed_iters, 20);
  EXPECT_TRUE(plan.in_place);
  o.iters = 50;
  EXPECT_EQ(make_coll_plan(o).fixed_iters, 50);
  o.iters.reset();
  o.target_ci = 0.02;
  EXPECT_NE(usage_error(o).find("--format nccl-tests"), std::string::npos);
}

TEST(CollOptions, AllTypesOpsAndRoots) {
  CollOptions o;
  o.op = "reduce";
  o.datatype = "all";
  o.redop = "all";
  o.root = "all";
  const CollPlan plan = make_coll_plan(o);
  EXPECT_EQ(plan.types.size(), 12u);
  EXPECT_EQ(plan.redops.size(), 6u);
  EXPECT_TRUE(plan.all_roots);
  EXPECT_EQ(roots_for(plan, 4), (std::vector<int>{0, 1, 2, 3}));
  o.root = "-1";
  EXPECT_TRUE(make_coll_plan(o).all_roots);
}

TEST(CollOptions, DataMovementIgnoresTheReduction) {
  CollOptions o;
  o.op = "all_gather";
  o.redop = "prod";
  EXPECT_EQ(make_coll_plan(o).redops, (std::vector<RedOp>{RedOp::kSum}));
  o.op = "sendrecv";  // prints the reduction like nccl-tests
  EXPECT_EQ(make_coll_plan(o).redops, (std::vector<RedOp>{RedOp::kProd}));
}

TEST(CollOptions, BadInputIsAOneLineUsageError) {
  CollOptions o;
  o.op = "allreducex";
  EXPECT_NE(usage_error(o).find("unknown collective 'allreducex'"), std::string::npos);
  o = CollOptions{};
  o.datatype = "float128";
  EXPECT_NE(usage_error(o).find("unknown data type 'float128'"), std::string::npos);
  o = CollOptions{};
  o.redop = "xor";
  EXPECT_NE(usage_error(o).find("unknown reduction 'xor'"), std::string::npos);
  o = CollOptions{};
  o.min_bytes = "1G";
  o.max_bytes = "1M";
  EXPECT_NE(usage_error(o).find("larger than maximum"), std::string::npos);
  o = CollOptions{};
  o.min_bytes = "12Q";
  EXPECT_NE(usage_error(o).find("invalid minimum size (-b) '12Q'"), std::string::npos);
  o = CollOptions{};
  o.gpus = 0;
  EXPECT_NE(usage_error(o).find("-g 0"), std::string::npos);
  o = CollOptions{};
  o.average = 7;
  EXPECT_NE(usage_error(o).find("-a 7"), std::string::npos);
  o = CollOptions{};
  o.root = "x";
  EXPECT_NE(usage_error(o).find("invalid root 'x'"), std::string::npos);
  o = CollOptions{};
  o.cycles = 0;
  EXPECT_NE(usage_error(o).find("-N 0"), std::string::npos);
  o = CollOptions{};
  o.iters = 10;
  o.max_time_s = 1;
  EXPECT_NE(usage_error(o).find("-n fixes"), std::string::npos);
  o = CollOptions{};
  o.target_ci = 2;
  EXPECT_NE(usage_error(o).find("--target-ci 2"), std::string::npos);
  o = CollOptions{};
  o.timeout_s = -1;
  EXPECT_NE(usage_error(o).find("--timeout"), std::string::npos);
}

TEST(CollOptions, RootOutsideTheRanks) {
  CollOptions o;
  o.op = "broadcast";
  o.root = "5";
  const CollPlan plan = make_coll_plan(o);
  try {
    roots_for(plan, 2);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("root 5"), std::string::npos);
  }
  EXPECT_EQ(roots_for(make_coll_plan(CollOptions{}), 8), (std::vector<int>{0}));  // unrooted
}

TEST(CollOptions, ThreadsAndChecksAreNamedInNotes) {
  CollOptions o;
  o.threads = 2;
  o.gpus = 2;
  o.check = 3;
  const CollPlan plan = make_coll_plan(o);
  EXPECT_EQ(plan.gpus_per_process, 4);
  std::string all;
  for (const auto& n : plan.notes) all += n + "\n";
  EXPECT_NE(all.find("-t 2 -g 2"), std::string::npos) << all;
  EXPECT_NE(all.find("-c 3"), std::string::npos) << all;
}

// The personality (all_reduce_perf ...) as cmd_coll sets it up.
CollOptions personality() {
  CollOptions o;
  o.personality = true;
  o.format = OutputFormat::kNcclTests;
  o.iters = 20;
  return o;
}

std::string notes(const CollPlan& plan) {
  std::string all;
  for (const auto& n : plan.notes) all += n + "\n";
  return all;
}

// -N 0 runs until a signal, as nccl-tests does, under its names; `linkscope coll` writes its Run at the end and
// needs an end.
TEST(CollOptions, PersonalitiesRepeatUntilASignalWithNZero) {
  CollOptions forever = personality();
  forever.cycles = 0;
  EXPECT_EQ(make_coll_plan(forever).cycles, 0);
  forever.cycles = -1;
  EXPECT_NE(usage_error(forever).find("-N"), std::string::npos);
  CollOptions coll;
  coll.cycles = 0;
  EXPECT_NE(usage_error(coll).find("-N 0 (repeat until a signal) is for the nccl-tests names"), std::string::npos);
}

TEST(CollOptions, PersonalitiesUseTheHostTimerUnlessLinkscopeStatsAreAsked) {
  EXPECT_EQ(make_coll_plan(personality()).clock, TimingClock::kHostLoop);
  CollOptions stats = personality();
  stats.linkscope_stats = true;
  EXPECT_EQ(make_coll_plan(stats).clock, TimingClock::kEvents);
  // linkscope coll keeps its events, also in nccl-tests' format.
  CollOptions coll;
  coll.format = OutputFormat::kNcclTests;
  EXPECT_EQ(make_coll_plan(coll).clock, TimingClock::kEvents);
  EXPECT_EQ(make_coll_plan(CollOptions{}).clock, TimingClock::kEvents);
}

TEST(CollOptions, NcclTestsFlagsReachThePlan) {
  CollOptions o = personality();
  o.blocking = 3;
  o.per_iter_timing = 1;
  o.per_iter_skip = 2;
  o.stream_null = 1;
  o.unalign = 3;
  o.local_register = 2;
  o.cta_policy = 1;
  o.parallel_init = 1;
  o.timestamps = 1;
  o.memory_report = 1;
  o.report_cputime = true;
  o.json_file = "out.json";
  const CollPlan plan = make_coll_plan(o);
  EXPECT_EQ(plan.blocking, BlockingMode::kPerIterationExcludingBarrier);
  EXPECT_TRUE(plan.per_iteration_timing);
  EXPECT_EQ(plan.per_iteration_skip, 2);
  EXPECT_TRUE(plan.null_stream);
  EXPECT_EQ(plan.unalign_elements, 3);
  EXPECT_EQ(plan.local_register, 2);
  EXPECT_EQ(plan.cta_policy, 1);
  EXPECT_TRUE(plan.parallel_init);
  EXPECT_TRUE(plan.timestamps);
  EXPECT_TRUE(plan.memory_report);
  EXPECT_TRUE(plan.report_cputime);
  EXPECT_EQ(plan.json_file, "out.json");
  EXPECT_TRUE(plan.notes.empty()) << notes(plan);
  EXPECT_FALSE(make_coll_plan(personality()).cta_policy.has_value());
}

TEST(CollOptions, NcclTestsTurnsConflictingFlagsOffWithItsWarnings) {
  CollOptions o = personality();
  o.per_iter_timing = 1;
  o.graph_launches = 2;
  CollPlan plan = make_coll_plan(o);
  EXPECT_FALSE(plan.per_iteration_timing);
  EXPECT_NE(notes(plan).find("per-iteration timing (-I) is incompatible with CUDA graph mode (-G). Disabling."),
            std::string::npos);

  o = personality();
  o.blocking = 3;
  o.graph_launches = 1;
  plan = make_coll_plan(o);
  EXPECT_EQ(plan.blocking, BlockingMode::kOff);
  EXPECT_NE(notes(plan).find("blocking mode (-z 3) is incompatible with CUDA graph mode (-G). Disabling."),
            std::string::npos);

  o = personality();
  o.per_iter_timing = 1;
  o.per_iter_skip = 20;  // -n 20: 0..19
  plan = make_coll_plan(o);
  EXPECT_EQ(plan.per_iteration_skip, 0);
  EXPECT_NE(notes(plan).find("per-iteration skip (-K) must be between 0 and 19. Disabling."), std::string::npos);

  o = personality();
  o.per_iter_skip = 1;
  plan = make_coll_plan(o);
  EXPECT_EQ(plan.per_iteration_skip, 0);
  EXPECT_NE(notes(plan).find("per-iteration skip (-K) requires per-iteration timing (-I 1). Disabling."),
            std::string::npos);

  o = personality();
  o.per_iter_timing = 2;
  plan = make_coll_plan(o);
  EXPECT_FALSE(plan.per_iteration_timing);
  EXPECT_NE(notes(plan).find("per-iteration timing (-I) only supports 0=off or 1=on. Disabling."), std::string::npos);
}

TEST(CollOptions, NcclTestsFlagErrorsNameTheFlag) {
  CollOptions o = personality();
  o.blocking = 4;
  EXPECT_NE(usage_error(o).find("-z 4"), std::string::npos);
  o = personality();
  o.blocking = 1;
  o.graph_launches = 1;
  EXPECT_NE(usage_error(o).find("-z 1 waits"), std::string::npos);
  o = personality();
  o.local_register = 3;
  EXPECT_NE(usage_error(o).find("-R 3"), std::string::npos);
  o = personality();
  o.cta_policy = 3;
  EXPECT_NE(usage_error(o).find("-x 3"), std::string::npos);
  o = personality();
  o.unalign = -1;
  EXPECT_NE(usage_error(o).find("-u -1"), std::string::npos);
  o = personality();
  o.device_impl = 1;
  o.local_register = 2;
  const CollPlan device = make_coll_plan(o);
  ASSERT_TRUE(device.device_api.has_value());
  EXPECT_EQ(device.device_api->ctas, 16);
}

TEST(CollOptions, DeviceFlagsAsNcclTestsTakesThem) {
  // -D without -R 2: nccl-tests' words; as an nccl-tests name its exit code (main returns -1), under coll exit 2.
  CollOptions o = personality();
  o.device_impl = 1;
  try {
    make_coll_plan(o);
    ADD_FAILURE() << "-D without -R 2 accepted";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "device implementation (-D > 0) requires enabling symmetric memory registration (-R 2)");
    EXPECT_EQ(to_int(e.code()), 255);
  }
  o.personality = false;
  o.format = OutputFormat::kNcclTests;
  EXPECT_NE(usage_error(o).find("requires enabling symmetric memory registration (-R 2)"), std::string::npos);
  // -V alone is taken; outside 1..128 nccl-tests' warning and its default, 16.
  o = personality();
  o.device_ctas = 32;
  CollPlan plan = make_coll_plan(o);
  EXPECT_FALSE(plan.device_api.has_value());
  EXPECT_TRUE(plan.notes.empty());
  o.device_impl = 1;
  o.local_register = 2;
  EXPECT_EQ(make_coll_plan(o).device_api->ctas, 32);
  for (int bad : {0, 129, -4}) {
    for (int impl : {0, 1}) {
      o.device_impl = impl;
      o.device_ctas = bad;
      plan = make_coll_plan(o);
      if (impl == 1) {
        EXPECT_EQ(plan.device_api->ctas, 16) << bad;
      }
      ASSERT_EQ(plan.notes.size(), 1u) << bad << " -D " << impl;  // once, with or without -D
      EXPECT_EQ(plan.notes[0], "device_cta_count (-V) must be positive and less than 128, got " + std::to_string(bad) +
                                   ". Using default value 16.");
    }
  }
  o.device_ctas = 128;
  EXPECT_EQ(make_coll_plan(o).device_api->ctas, 128);
}

TEST(CollOptions, HostTimerFlagsAndJsonNeedThePersonality) {
  CollOptions o;
  o.blocking = 1;
  EXPECT_NE(usage_error(o).find("-z and -I describe nccl-tests' host-timed loop"), std::string::npos);
  o = CollOptions{};
  o.per_iter_timing = 1;
  EXPECT_NE(usage_error(o).find("-z and -I"), std::string::npos);
  o = CollOptions{};
  o.json_file = "x.json";
  EXPECT_NE(usage_error(o).find("-J writes nccl-tests' JSON"), std::string::npos);
  o.format = OutputFormat::kNcclTests;
  EXPECT_EQ(make_coll_plan(o).json_file, "x.json");
}

TEST(CollOptions, MemoryCapFollowsNcclTestsReserve) {
  constexpr std::uint64_t kGiB = 1ULL << 30;
  // 141 GiB H200: reserve 4 GiB + 1 GiB, two buffers.
  EXPECT_EQ(max_buffer_bytes_for_memory(141 * kGiB), (141 - 4 - 1) * kGiB / 2);
  // 16 GiB: reserve 1 GiB + 1 GiB.
  EXPECT_EQ(max_buffer_bytes_for_memory(16 * kGiB), 7 * kGiB);
  EXPECT_EQ(max_buffer_bytes_for_memory(kGiB), 0u);
}

TEST(CollOptions, LocalDevicesFollowLocalRankOrBinding) {
  EXPECT_EQ(select_local_devices(2, 2, 0, std::nullopt), (std::vector<int>{0, 1}));
  EXPECT_EQ(select_local_devices(8, 1, 3, std::nullopt), (std::vector<int>{3}));
  EXPECT_EQ(select_local_devices(8, 2, 1, std::nullopt), (std::vector<int>{2, 3}));
  // srun --gpus-per-task: every task sees exactly its own GPU as device 0.
  EXPECT_EQ(select_local_devices(1, 1, 5, std::nullopt), (std::vector<int>{0}));
  EXPECT_EQ(select_local_devices(8, 2, 0, 4), (std::vector<int>{4, 5}));
  try {
    select_local_devices(2, 4, 0, std::nullopt);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("-g 4 needs GPUs 0..3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("only 2 GPU(s) are visible"), std::string::npos) << e.what();
  }
  EXPECT_THROW(select_local_devices(4, 2, 0, 3), UsageError);
  EXPECT_EQ(nccl_tests_device(Environment::from_map({{"NCCL_TESTS_DEVICE", "3"}})), 3);
  EXPECT_FALSE(nccl_tests_device(Environment::from_map({})));
}

TEST(CollOptions, ThePlanCarriesHowEachPointIsRun) {
  CollOptions o;
  o.warmup_iters = 5;
  o.agg_iters = 4;
  o.graph_launches = 2;
  o.cycles = 3;
  o.timeout_s = 30;
  const CollPlan plan = make_coll_plan(o);
  EXPECT_EQ(plan.warmup_iters, 5);
  EXPECT_EQ(plan.agg_iters, 4);
  EXPECT_EQ(plan.graph_launches, 2);
  EXPECT_EQ(plan.cycles, 3);
  EXPECT_EQ(plan.timeout_s, 30);
  EXPECT_FALSE(plan.all_types);
  o.datatype = "all";
  EXPECT_TRUE(make_coll_plan(o).all_types);
}

}  // namespace
}  // namespace linkscope::coll
