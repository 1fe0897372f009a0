// linkscope's NVML loader (dlopen, dlsym, batched NVLink fields, per-link fallback) against a recorded NVML of
// the h200x2 machine built as a shared library (tests/cli/discover_fake_nvml/fake_nvml.cpp).
#include <gtest/gtest.h>

#include <cstdlib>

#include "discover/nvml_source.hpp"

namespace linkscope::discover {
namespace {

TEST(DiscoverNvmlLoader, MissingLibraryIsUnavailableWithTheReason) {
  const NvmlSnapshot snapshot = make_nvml_library_source("/nonexistent/libnvidia-ml.so.1")->read();
  EXPECT_FALSE(snapshot.available);
  EXPECT_EQ(snapshot.reason.rfind("dlopen(/nonexistent/libnvidia-ml.so.1) failed: ", 0), 0u) << snapshot.reason;
  EXPECT_TRUE(snapshot.gpus.empty());
}

TEST(DiscoverNvmlLoader, ALibraryWithoutNvmlIsRefusedByName) {
  const NvmlSnapshot snapshot = make_nvml_library_source("libc.so.6")->read();
  EXPECT_FALSE(snapshot.available);
  EXPECT_EQ(snapshot.reason, "libc.so.6 lacks nvmlInit_v2: not NVML, or a driver too old for linkscope");
}

TEST(DiscoverNvmlLoader, ReadsEveryFactOfTheRecordedMachine) {
  const NvmlSnapshot snapshot = make_nvml_library_source(LINKSCOPE_FAKE_NVML)->read();
  ASSERT_TRUE(snapshot.available) << snapshot.reason;
  EXPECT_EQ(*snapshot.driver_version, "580.159.04");
  EXPECT_EQ(*snapshot.cuda_driver_version, 13000);
  ASSERT_EQ(snapshot.gpus.size(), 2u);
  const NvmlGpuRecord& gpu = snapshot.gpus[1];
  EXPECT_EQ(gpu.index, 1u);
  EXPECT_EQ(gpu.pci_bus_id, "0000:00:07.0");
  EXPECT_EQ(gpu.uuid, "GPU-005980e6-efd3-0254-f791-a39d369f7e24");
  EXPECT_EQ(*gpu.sm, 90);
  EXPECT_TRUE(*gpu.persistence_mode);
  EXPECT_FALSE(*gpu.mig_enabled);
  EXPECT_EQ(*gpu.pcie_max_width, 16u);
  EXPECT_EQ(*gpu.sm_max_clock_mhz, 1980u);
  EXPECT_EQ(*gpu.mem_clock_mhz, 3201u);
  EXPECT_EQ(*gpu.clock_event_reasons, 1ULL);
  EXPECT_EQ(gpu.cpu_affinity->size(), 32u);
  EXPECT_EQ(gpu.gpu_numa_node.reason, "nvmlDeviceGetNumaNodeId: Not Supported");
  EXPECT_EQ(*gpu.c2c_active_links, 0u);
  ASSERT_EQ(gpu.nvlinks.size(), 18u);
  const NvlinkRecord& link = gpu.nvlinks[5];
  EXPECT_TRUE(*link.active);
  EXPECT_TRUE(*link.p2p_supported);
  EXPECT_EQ(*link.version, 4u);
  EXPECT_EQ(*link.speed_mbyte_s, 26562u);
  EXPECT_EQ(*link.remote_bus_id, "fffffff:ff:ff.0");  // lower-cased as NCCL writes it
  EXPECT_EQ(*link.remote_type, "nvswitch");
  EXPECT_EQ(*link.crc_errors, 0ULL);
  ASSERT_TRUE(snapshot.gpus[0].processes.has());
  ASSERT_EQ(snapshot.gpus[0].processes->size(), 1u);  // after an INSUFFICIENT_SIZE answer and a retry
  EXPECT_EQ((*snapshot.gpus[0].processes)[0].name, "python3");
  ASSERT_EQ(snapshot.pairs.size(), 2u);
  EXPECT_EQ(*snapshot.pairs[0].topology_level, 30);
  EXPECT_EQ(*snapshot.pairs[0].p2p_read, "OK");
}

TEST(DiscoverNvmlLoader, WithoutFieldValuesLinksAreReadOneByOne) {
  setenv("FAKE_NVML_NO_FIELD_VALUES", "1", 1);
  const NvmlSnapshot snapshot = make_nvml_library_source(LINKSCOPE_FAKE_NVML)->read();
  unsetenv("FAKE_NVML_NO_FIELD_VALUES");
  ASSERT_TRUE(snapshot.available);
  const auto& links = snapshot.gpus[0].nvlinks;
  ASSERT_EQ(links.size(), 18u);  // until NVML refuses link 18
  EXPECT_TRUE(*links[0].active);
  EXPECT_EQ(*links[0].version, 4u);
  EXPECT_EQ(*links[0].replay_errors, 0ULL);
  EXPECT_FALSE(links[0].speed_mbyte_s.has());
  EXPECT_EQ(links[0].speed_mbyte_s.reason, "nvmlDeviceGetFieldValues: Function Not Found");
}

TEST(DiscoverNvmlLoader, ClockEventReasonNames) {
  EXPECT_EQ(clock_event_reason_names(0x1 | 0x4 | 0x80),
            (std::vector<std::string>{"gpu_idle", "sw_power_cap", "hw_power_brake_slowdown"}));
  EXPECT_TRUE(clock_event_reason_names(0).empty());
  EXPECT_EQ(clock_event_reason_names(1ULL << 40), (std::vector<std::string>{"reason_bit_40"}));
}

}  // namespace
}  // namespace linkscope::discover
