// gpu-count-mismatch, ecc-errors, gpu-throttled, wrong-results, noisy-measurement (process list and CV).
#include <set>

#include <gtest/gtest.h>

#include "diagnose/diagnose.hpp"
#include "diagnose_test_runs.hpp"

namespace linkscope::diagnose {
namespace {

using test::kMiB;

std::vector<Finding> findings(const test::RunJson& run) { return find_problems(run); }

TEST(RuleState, MigExplainsACountMismatch) {
  test::RunJson run = test::nvswitch_run(2);
  run.system["visibility"]["cuda_device_count"] = 7;
  run.system["gpus"][0]["mig_mode"] = "enabled";
  const auto f = findings(run);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "gpu-count-mismatch");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_NE(f[0].cause.find("MIG"), std::string::npos);
}

TEST(RuleState, DiscoveryRecordOfTheMaskExplainsACountMismatch) {
  test::RunJson run = test::nvswitch_run(2);
  run.system["visibility"]["cuda_device_count"] = 1;
  run.system["visibility"]["cuda_visible_devices"] = "1";
  const auto f = findings(run);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_NE(f[0].cause.find("CUDA_VISIBLE_DEVICES=1"), std::string::npos) << f[0].cause;
}

TEST(RuleState, UnexplainedCountMismatchIsAnError) {
  test::RunJson run = test::nvswitch_run(2);
  run.system["visibility"]["cuda_device_count"] = 1;
  const auto f = findings(run);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kError);
}

TEST(RuleState, EccSeverityFollowsTheCounter) {
  test::RunJson run = test::nvswitch_run(2);
  run.system["gpus"][1]["ecc"]["aggregate_uncorrected"] = 2;
  auto f = findings(run);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "ecc-errors");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  run.system["gpus"][1]["ecc"]["volatile_uncorrected"] = 1;
  f = findings(run);
  EXPECT_EQ(f[0].severity, Severity::kError);
  EXPECT_EQ(f[0].gpus, std::vector<int>{1});
}

TEST(RuleState, ThermalThrottleWarnsPowerCapInformsIdleIsSilent) {
  test::RunJson run = test::nvswitch_run(2);
  run.system["gpus"][0]["throttle_reasons"] = {"clocks_event_reason_sw_power_cap"};
  auto f = findings(run);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kInfo);
  run.system["gpus"][0]["throttle_reasons"] = {"hw_thermal_slowdown"};
  f = findings(run);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "gpu-throttled");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
}

TEST(RuleState, WrongDataIsAnError) {
  test::RunJson run = test::nvswitch_run(2);
  auto bad = test::copy_point(0, 1, "ce", 64 * kMiB, 390.0);
  bad["status"] = "wrong";
  bad["wrong"] = 12;
  test::add_copies(run, nlohmann::json::array({bad}));
  const auto f = findings(run);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "wrong-results");
  EXPECT_EQ(f[0].severity, Severity::kError);
}

TEST(RuleState, HighVariationAtBandwidthSizesIsNoiseButNotAtLatencySizes) {
  test::RunJson run = test::nvswitch_run(2);
  test::add_copies(run, {test::copy_point(0, 1, "ce", 64 * 1024, 5.0, 0.4), test::copy_point(1, 0, "ce", 64 * 1024, 5.0, 0.3)});
  EXPECT_TRUE(findings(run).empty());
  test::add_copies(run, {test::copy_point(0, 1, "ce", 256 * kMiB, 390.0, 0.08),
                         test::copy_point(1, 0, "ce", 256 * kMiB, 391.0, 0.01)});
  const auto f = findings(run);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "noisy-measurement");
  EXPECT_EQ(f[0].severity, Severity::kInfo) << "one point a little above the limit is noted, not a warning";
}

TEST(RuleState, VariationIsAWarningWhenLargeOrWidespread) {
  test::RunJson large = test::nvswitch_run(2);
  test::add_copies(large, {test::copy_point(0, 1, "ce", 256 * kMiB, 300.0, 0.12),
                           test::copy_point(1, 0, "ce", 256 * kMiB, 391.0, 0.01)});
  auto f = findings(large);
  ASSERT_FALSE(f.empty());
  EXPECT_EQ(f[0].id, "noisy-measurement");
  EXPECT_EQ(f[0].severity, Severity::kWarning);

  test::RunJson widespread = test::nvswitch_run(2);
  test::add_copies(widespread, {test::copy_point(0, 1, "ce", 256 * kMiB, 390.0, 0.06),
                                test::copy_point(1, 0, "ce", 256 * kMiB, 391.0, 0.06),
                                test::copy_point(0, 1, "ce", 1024 * kMiB, 395.0, 0.06)});
  f = findings(widespread);
  ASSERT_FALSE(f.empty());
  EXPECT_EQ(f[0].id, "noisy-measurement");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
}

TEST(RuleState, LinkscopeItselfInTheProcessListIsNotForeign) {
  test::RunJson run = test::nvswitch_run(2);
  run.system["gpus"][0]["processes"] = {{{"pid", 77}, {"name", "/usr/bin/linkscope"}}};
  EXPECT_TRUE(findings(run).empty());
  run.system["gpus"][0]["processes"].push_back({{"pid", 78}, {"name", "python3"}});
  const auto f = findings(run);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "noisy-measurement");
  EXPECT_NE(f[0].cause.find("pid 78 python3"), std::string::npos) << f[0].cause;
}

// NVML missing but CUDA working: a warning that says what is missing, not driver-unavailable, and no count mismatch
// (nothing counted the machine's GPUs). With CUDA gone too it is driver-unavailable, an error.
TEST(RuleState, NvmlMissingWithCudaWorkingIsAWarningNotADriverError) {
  test::RunJson run = test::nvswitch_run(1);
  run.system["driver"] = {{"available", false}, {"reason", "libnvidia-ml.so.1: cannot open shared object file"}};
  run.system["cuda"] = {{"available", true}, {"driver_version", 13000}, {"device_count", 1}};
  run.system["visibility"]["nvml_gpu_count"] = 0;
  auto f = findings(run);
  ASSERT_EQ(f.size(), 1u) << f[0].id;
  EXPECT_EQ(f[0].id, "nvml-unavailable");
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  EXPECT_NE(f[0].evidence[0].find("libnvidia-ml.so.1"), std::string::npos);
  EXPECT_EQ(f[0].evidence[1], "CUDA: 1 device(s), driver supports CUDA 13.0");

  run.system["cuda"] = {{"available", false}, {"device_count", 0}, {"reason", "no CUDA-capable device"}};
  f = findings(run);
  ASSERT_EQ(f.size(), 1u) << f[0].id;
  EXPECT_EQ(f[0].id, "driver-unavailable");
  EXPECT_EQ(f[0].severity, Severity::kError);
}

// nccl-unavailable names the doctor's steps it kept from running (skipped) apart from those that tried and failed.
TEST(RuleState, NcclMissingNamesStepsNotRunAndStepsThatFailed) {
  test::RunJson run = test::nvswitch_run(2);
  const std::string why = "libnccl.so.2: cannot open shared object file";
  run.environment["nccl_unavailable"] = why;
  run.config["skipped"] = {{{"step", "coll all_reduce"}, {"reason", "NCCL: " + why}},
                           {{"step", "patterns"}, {"reason", "one GPU"}}};
  run.errors = {{{"where", "coll sendrecv"}, {"message", why}}};
  const auto f = findings(run);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "nccl-unavailable");
  EXPECT_EQ(f[0].evidence, (std::vector<std::string>{why, "coll all_reduce: not run", "coll sendrecv: failed"}));
}

}  // namespace
}  // namespace linkscope::diagnose
