#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "discover/live_discovery.hpp"
#include "discover_recorded_h200x2.hpp"
#include "discover_snapshot.hpp"

namespace linkscope::discover {
namespace {

class RecordedNvml : public NvmlSource {
 public:
  explicit RecordedNvml(NvmlSnapshot snapshot) : snapshot_(std::move(snapshot)) {}
  NvmlSnapshot read() override {
    ++reads;
    return snapshot_;
  }
  int reads = 0;

 private:
  NvmlSnapshot snapshot_;
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

// Overlap is proven by a handshake, not by wall-clock bounds (a loaded 2-core CI machine broke those): the NVML
// read waits until the NCCL child has started, and the child finishes only after the NVML read has happened. Run one
// after the other, in either order, one side times out and the test fails.
class HandshakeNvml : public NvmlSource {
 public:
  HandshakeNvml(std::string child_started, std::string nvml_read)
      : child_started_(std::move(child_started)), nvml_read_(std::move(nvml_read)) {}
  NvmlSnapshot read() override {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    struct stat info {};
    while (!(saw_child = stat(child_started_.c_str(), &info) == 0) && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    std::ofstream(nvml_read_) << "read\n";
    NvmlSnapshot no_driver;
    no_driver.reason = "recorded: no driver";
    return no_driver;
  }
  bool saw_child = false;

 private:
  std::string child_started_;
  std::string nvml_read_;
};

TEST(DiscoverLive, NcclChildRunsWhileDiscoveryProceeds) {
  test::TempDir dir;
  const std::string child_started = dir.path() + "/child-started";
  const std::string nvml_read = dir.path() + "/nvml-read";
  const std::string probe = dir.write("probe.sh",
                                      "#!/bin/sh\n"
                                      ": > '" + child_started + "'\n"
                                      "i=0\n"
                                      "while [ ! -e '" + nvml_read + "' ]; do\n"
                                      "  i=$((i + 1)); [ $i -gt 400 ] && { echo 'NVML was never read' >&2; exit 9; }\n"
                                      "  sleep 0.05\n"
                                      "done\n"
                                      "echo '<system version=\"1\"/>' > \"$NCCL_TOPO_DUMP_FILE\"\n"
                                      ": > \"$NCCL_DEBUG_FILE\"\n"
                                      "echo '{\"nccl_version\":\"2.28.9\",\"device_count\":1,\"init_seconds\":0.1}'\n");
  chmod(probe.c_str(), 0755);
  HandshakeNvml nvml(child_started, nvml_read);
  RecordedCuda cuda(CudaSnapshot{});
  LiveDiscoveryOptions options;
  options.nccl_program = probe;
  options.nccl_timeout_seconds = 60;
  const LiveDiscovery result = discover_live(nvml, cuda, Environment::from_map({}), options);
  EXPECT_TRUE(nvml.saw_child) << "the NCCL child had not started when NVML was read";
  ASSERT_TRUE(result.nccl.has_value());
  EXPECT_EQ(result.nccl->status, "ok") << result.nccl->reason;
  EXPECT_EQ(result.nccl->nccl_version, "2.28.9");
  EXPECT_GE(result.times.total_seconds, result.times.nvml_seconds);

  options.ask_nccl = false;
  RecordedNvml plain(NvmlSnapshot{});
  EXPECT_FALSE(discover_live(plain, cuda, Environment::from_map({}), options).nccl.has_value());
  EXPECT_EQ(plain.reads, 1);
}

}  // namespace
}  // namespace linkscope::discover
