#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <thread>

#include "discover/live_discovery.hpp"
#include "discover_recorded_h200x2.hpp"
#include "discover_snapshot.hpp"

namespace linkscope::discover {
namespace {

class RecordedNvml : public NvmlSource {
 public:
  explicit RecordedNvml(NvmlSnapshot snapshot, double delay_seconds = 0)
      : snapshot_(std::move(snapshot)), delay_seconds_(delay_seconds) {}
  NvmlSnapshot read() override {
    ++reads;
    std::this_thread::sleep_for(std::chrono::duration<double>(delay_seconds_));  // a slow nvmlInit
    return snapshot_;
  }
  int reads = 0;

 private:
  NvmlSnapshot snapshot_;
  double delay_seconds_;
};

class RecordedCuda : public CudaSource {
 public:
  explicit RecordedCuda(CudaSnapshot snapshot) : snapshot_(std::move(snapshot)) {}
  CudaSnapshot read() override { return snapshot_; }

 private:
  CudaSnapshot snapshot_;
};

TEST(DiscoverLive, SnapshotRootJoinsRecordedDriverFactsAndSkipsNccl) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  const NvmlSnapshot nvml_facts = test::h200x2_nvml_snapshot();
  RecordedNvml nvml(nvml_facts);
  RecordedCuda cuda(test::h200x2_cuda_snapshot(nvml_facts, {0, 1}));
  LiveDiscoveryOptions options;
  options.sysfs_root = snapshot.root();
  const LiveDiscovery result = discover_live(nvml, cuda, Environment::from_map({}), options);
  EXPECT_EQ(nvml.reads, 1);
  EXPECT_EQ(result.facts.gpus.size(), 2u);
  EXPECT_EQ(result.synthesized.gpu_count, 2);
  ASSERT_TRUE(result.nccl.has_value());
  EXPECT_EQ(result.nccl->status, "skipped");
  EXPECT_NE(result.nccl->reason.find("--sysfs-root"), std::string::npos);
  EXPECT_GE(result.times.total_seconds, result.times.sysfs_seconds);
}

TEST(DiscoverLive, NcclChildRunsWhileDiscoveryProceeds) {
  test::TempDir dir;
  const std::string probe = dir.write("probe.sh",
                                      "#!/bin/sh\nsleep 0.4\n"
                                      "echo '<system version=\"1\"/>' > \"$NCCL_TOPO_DUMP_FILE\"\n"
                                      ": > \"$NCCL_DEBUG_FILE\"\n"
                                      "echo '{\"nccl_version\":\"2.28.9\",\"device_count\":1,\"init_seconds\":0.4}'\n");
  chmod(probe.c_str(), 0755);
  NvmlSnapshot no_driver;
  no_driver.reason = "recorded: no driver";
  RecordedNvml nvml(no_driver, 0.3);
  RecordedCuda cuda(CudaSnapshot{});
  LiveDiscoveryOptions options;
  options.nccl_program = probe;
  const LiveDiscovery result = discover_live(nvml, cuda, Environment::from_map({}), options);
  ASSERT_TRUE(result.nccl.has_value());
  EXPECT_EQ(result.nccl->status, "ok") << result.nccl->reason;
  EXPECT_EQ(result.nccl->nccl_version, "2.28.9");
  // The child (0.4 s) was started first and overlapped the 0.3 s NVML read: one after the other would be 0.7 s.
  EXPECT_GE(result.times.nvml_seconds, 0.3);
  EXPECT_LT(result.times.nccl_wait_seconds, 0.3);
  EXPECT_LT(result.times.total_seconds, 0.65);

  options.ask_nccl = false;
  EXPECT_FALSE(discover_live(nvml, cuda, Environment::from_map({}), options).nccl.has_value());
}

}  // namespace
}  // namespace linkscope::discover
