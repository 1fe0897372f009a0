// measure::run_collectives on real GPUs: a plan becomes verified series with every rank's GPU, the settled plan
// reaches the caller before NCCL starts, a given NCCL id and a sweep that stops at a failing size work as the
// cluster's host pairs use them, and a plan the ranks cannot run is refused before NCCL is touched.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/environment.hpp"
#include "core/error.hpp"
#include "device_test_support.hpp"
#include "measure/collective_run.hpp"
#include "runtime/nccl_debug_capture.hpp"

namespace linkscope {
namespace {

int gpus_to_use() { return std::min(platform::cuda_device_count_or_zero(), 2); }

// 1 KiB, 8 KiB and 64 KiB with 3 timed iterations each.
coll::CollPlan small_plan(const std::string& op, int gpus) {
  coll::CollOptions o;
  o.op = op;
  o.min_bytes = "1K";
  o.max_bytes = "64K";
  o.step_factor = 8;
  o.iters = 3;
  o.gpus = gpus;
  o.timeout_s = 60;
  return coll::make_coll_plan(o);
}

measure::CollectiveRequest request_for(const std::string& op, int gpus) {
  measure::CollectiveRequest request;
  request.plan = small_plan(op, gpus);
  for (int i = 0; i < gpus; ++i) request.devices.push_back(i);
  request.nccl_env = {{"NCCL_NVLS_ENABLE", "0"}};
  request.init_timeout_message = "linkscope: error: NCCL initialisation did not finish (collective_run_device_test)";
  return request;
}

void expect_verified(const model::CollectiveSeries& series, std::size_t sizes) {
  ASSERT_EQ(series.points.size(), sizes);
  for (const auto& p : series.points) {
    SCOPED_TRACE(std::to_string(p.requested_bytes) + " B");
    EXPECT_EQ(p.status, "ok") << p.reason.value_or("");
    ASSERT_TRUE(p.wrong.has_value());
    EXPECT_EQ(*p.wrong, 0);
    ASSERT_TRUE(p.time.has_value());
    EXPECT_EQ(p.iterations, 3u);
  }
}

TEST(CollectiveRunDevice, APlanBecomesVerifiedSeriesWithEveryRanksGpu) {
  LINKSCOPE_REQUIRE_GPUS(1);
  LINKSCOPE_REQUIRE_NCCL();
  const int n = gpus_to_use();
  measure::CollectiveRequest request = request_for("all_reduce", n);
  // The user's NCCL_DEBUG: the runtime layer says why it is not recorded (nothing is set in this process).
  runtime::NcclDebugCapture capture(Environment::from_map({{"NCCL_DEBUG", "WARN"}}));
  request.capture = &capture;
  request.runtime_context = "coll all_reduce";
  int setups = 0, starts = 0, sizes = 0;
  measure::CollectiveProgress progress;
  progress.on_setup = [&](const measure::CollectiveSetup& setup) {
    ++setups;
    EXPECT_EQ(starts, 0) << "the setup is reported before NCCL starts";
    EXPECT_EQ(setup.nranks, n);
    EXPECT_EQ(setup.series.size(), 1u);
    EXPECT_EQ(setup.plan.sizes.size(), 3u);
  };
  progress.on_started = [&](const std::vector<model::DeviceRecord>& devices) {
    ++starts;
    EXPECT_EQ(devices.size(), static_cast<std::size_t>(n));
  };
  progress.on_size = [&](const model::CollectiveSeries& series, const std::vector<model::CollectivePoint>& points) {
    ++sizes;
    EXPECT_EQ(points.size(), 1u);
    EXPECT_EQ(series.points.size(), static_cast<std::size_t>(sizes));
  };
  measure::SingleProcessGroup group;
  const measure::CollectiveRun run = measure::run_collectives(request, group, progress);
  EXPECT_EQ(setups, 1);
  EXPECT_EQ(starts, 1);
  EXPECT_EQ(sizes, 3);
  ASSERT_EQ(run.series.size(), 1u);
  const model::CollectiveSeries& series = run.series[0];
  EXPECT_EQ(series.op, coll::CollectiveOp::kAllReduce);
  EXPECT_EQ(series.nranks, n);
  EXPECT_EQ(series.launch, "single-process");
  EXPECT_EQ(series.nccl_call, "ncclAllReduce");
  EXPECT_EQ(series.env.at("NCCL_NVLS_ENABLE"), "0");
  EXPECT_EQ(series.devices.size(), static_cast<std::size_t>(n));
  expect_verified(series, 3);
  ASSERT_EQ(run.local_devices.size(), static_cast<std::size_t>(n));
  EXPECT_FALSE(run.local_devices[0].uuid.empty());
  EXPECT_EQ(run.devices.size(), static_cast<std::size_t>(n));
  EXPECT_GE(run.setup.buffer_bytes, 64u << 10);
  EXPECT_FALSE(run.setup.reduced_max_bytes);
  EXPECT_FALSE(run.aborted);
  EXPECT_EQ(run.status(), ExitCode::kOk);
  ASSERT_TRUE(run.runtime);
  EXPECT_EQ(run.runtime->context, "coll all_reduce");
  EXPECT_FALSE(run.runtime->recorded);
  EXPECT_NE(run.runtime->reason.find("NCCL_DEBUG=WARN"), std::string::npos) << run.runtime->reason;
}

TEST(CollectiveRunDevice, AGivenIdAndASweepThatStopsAtAFailureAsTheClusterPairsRunThem) {
  LINKSCOPE_REQUIRE_GPUS(1);
  LINKSCOPE_REQUIRE_NCCL();
  const int n = gpus_to_use();
  measure::CollectiveRequest request = request_for("sendrecv", n);
  request.nccl_id = measure::new_nccl_id();
  ASSERT_EQ(request.nccl_id->size(), measure::kNcclIdBytes);
  request.launch = "mpi";
  request.fit_sizes_to_memory = false;
  request.size_errors = measure::SizeErrors::kRecordAndStop;
  measure::SingleProcessGroup group;
  const measure::CollectiveRun run = measure::run_collectives(request, group);
  ASSERT_EQ(run.series.size(), 1u);
  EXPECT_EQ(run.series[0].launch, "mpi");
  expect_verified(run.series[0], 3);
  EXPECT_EQ(run.setup.buffer_bytes, 64u << 10);  // the largest size as it is: nothing was fitted
  EXPECT_FALSE(run.runtime);                     // no runtime context asked
  EXPECT_EQ(run.status(), ExitCode::kOk);
}

TEST(CollectiveRunDevice, APlanTheRanksCannotRunIsRefusedBeforeNccl) {
  LINKSCOPE_REQUIRE_GPUS(1);
  const int n = gpus_to_use();
  measure::CollectiveRequest request = request_for("reduce", n);
  request.plan.root = 5;
  bool set_up = false;
  measure::CollectiveProgress progress;
  progress.on_setup = [&](const measure::CollectiveSetup&) { set_up = true; };
  measure::SingleProcessGroup group;
  EXPECT_THROW(measure::run_collectives(request, group, progress), UsageError);
  EXPECT_FALSE(set_up);
  request.plan.root = 0;
  request.devices.push_back(0);  // one GPU more than the plan drives per process: a caller's bug
  EXPECT_THROW(measure::run_collectives(request, group, progress), Error);
  EXPECT_FALSE(set_up);
}

}  // namespace
}  // namespace linkscope
