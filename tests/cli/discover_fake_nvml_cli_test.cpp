// `linkscope topo` through linkscope's real NVML loader (dlopen/dlsym, batched field queries, fallbacks) with a
// recorded NVML of the h200x2 machine (discover_fake_nvml/fake_nvml.cpp) and that machine's sysfs snapshot.
// CUDA_VISIBLE_DEVICES= hides every GPU from CUDA, so the tests mean the same with or without a real GPU.
#include <gtest/gtest.h>

#include <regex>

#include <nlohmann/json.hpp>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "unit/discover_snapshot.hpp"

namespace linkscope {
namespace {

using test::run_command;

std::vector<std::string> fake_driver(std::vector<std::string> extra = {}) {
  extra.push_back(std::string("LINKSCOPE_NVML_LIBRARY=") + LINKSCOPE_FAKE_NVML);
  extra.push_back("CUDA_VISIBLE_DEVICES=");
  return extra;
}

std::string without_ansi(const std::string& text) { return std::regex_replace(text, std::regex("\x1b\\[[0-9;]*m"), ""); }

TEST(DiscoverFakeNvmlCli, MatrixThroughTheLoaderEqualsNvidiaSmi) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  const auto result = run_command(LINKSCOPE_BINARY, {"topo", "--sysfs-root", snapshot.root()}, fake_driver());
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const std::string smi = without_ansi(test::read_text(test::fixture("h200x2/nvidia-smi-topo-m.txt")));
  EXPECT_NE(result.out.find("Topology (as nvidia-smi topo -m; GPUn = NVML index):\n" + smi + "\nGPUs:\n"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("driver 580.159.04 (CUDA 13.0)"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("GPU0: 18/18 links active, NVLink 4, 26.562 GB/s each, 478.116 GB/s total per direction -> "
                            "NVSwitch x18; errors: replay 0 recovery 0 crc 0"),
            std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("is not visible to CUDA: CUDA_VISIBLE_DEVICES= does not select it"), std::string::npos)
      << result.out;
  EXPECT_NE(result.out.find("no GPU is visible to CUDA"), std::string::npos) << result.out;
}

TEST(DiscoverFakeNvmlCli, JsonCarriesTheLoadersFacts) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  const auto result = run_command(LINKSCOPE_BINARY, {"topo", "--sysfs-root", snapshot.root(), "--format", "json"}, fake_driver());
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const auto system = nlohmann::json::parse(result.out)["system"];
  EXPECT_TRUE(system["driver"]["available"].get<bool>());
  EXPECT_EQ(system["driver"]["cuda_driver_version"], 13000);
  // CUDA shows no GPU here: both GPUs and their pair live under `visibility`.
  EXPECT_TRUE(system["gpus"].empty());
  EXPECT_TRUE(system["pairs"].empty());
  const auto& hidden = system["visibility"]["hidden"];
  ASSERT_EQ(hidden.size(), 2u);
  const auto& gpu0 = hidden[0]["gpu"];
  EXPECT_EQ(gpu0["pci_bdf"], "0000:00:06.0");  // canonical, from NVML's "00000000:00:06.0"
  EXPECT_EQ(gpu0["uuid"], "GPU-db0b843c-9616-d6f1-74d8-de3fe79dca28");
  EXPECT_EQ(gpu0["sm"], 90);
  EXPECT_EQ(gpu0["memory_bytes"], 143771ULL << 20);
  EXPECT_EQ(gpu0["cpu_affinity"], "0-31");
  EXPECT_TRUE(gpu0["gpu_numa_id"].is_null());
  EXPECT_EQ(gpu0["gpu_numa_id_reason"], "nvmlDeviceGetNumaNodeId: Not Supported");
  EXPECT_EQ(gpu0["throttle_reasons"], nlohmann::json::array({"gpu_idle"}));
  EXPECT_EQ(gpu0["clocks"]["mem_max_mhz"], 3201);
  EXPECT_EQ(gpu0["memory_bus_width_bits"], 6144);  // with the clock, the memory's rate (model/memory_rate)
  EXPECT_TRUE(gpu0["l2_cache_bytes"].is_null());   // CUDA shows no GPU here
  EXPECT_EQ(gpu0["l2_cache_bytes_reason"], "not visible to CUDA");
  ASSERT_EQ(gpu0["nvlinks"].size(), 18u);
  EXPECT_EQ(gpu0["nvlinks"][17]["speed_gbps"], 26.562);
  EXPECT_EQ(gpu0["nvlinks"][17]["remote_bdf"], "fffffff:ff:ff.0");
  EXPECT_EQ(gpu0["nvlinks"][17]["remote_type"], "nvswitch");
  ASSERT_EQ(gpu0["processes"].size(), 1u);  // found after an INSUFFICIENT_SIZE retry
  EXPECT_EQ(gpu0["processes"][0]["name"], "python3");
  EXPECT_EQ(gpu0["processes"][0]["used_memory_bytes"], 1ULL << 30);
  EXPECT_TRUE(hidden[1]["gpu"]["processes"].empty());
  const auto& pairs = system["visibility"]["hidden_pairs"];
  ASSERT_EQ(pairs.size(), 2u);
  EXPECT_EQ(pairs[0]["relation"], "NV18");
  EXPECT_EQ(pairs[0]["topology_level"], 30);
  EXPECT_EQ(pairs[0]["nvml_p2p"]["atomics"], "OK");
  EXPECT_EQ(system["visibility"]["nvml_gpu_count"], 2);
}

TEST(DiscoverFakeNvmlCli, OldDriverWithoutFieldValuesFallsBackPerLink) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  const auto result = run_command(LINKSCOPE_BINARY, {"topo", "--sysfs-root", snapshot.root(), "--format", "json"},
                                  fake_driver({"FAKE_NVML_NO_FIELD_VALUES=1"}));
  EXPECT_EQ(result.exit_code, 0) << result.err;
  const auto gpu0 = nlohmann::json::parse(result.out)["system"]["visibility"]["hidden"][0]["gpu"];
  ASSERT_EQ(gpu0["nvlinks"].size(), 18u);  // found link by link until NVML refuses one
  const auto& link = gpu0["nvlinks"][3];
  EXPECT_TRUE(link["active"].get<bool>());
  EXPECT_EQ(link["version"], 4);
  EXPECT_EQ(link["errors"]["crc_flit"], 0);
  EXPECT_TRUE(link["speed_gbps"].is_null());
  EXPECT_EQ(link["speed_gbps_reason"], "nvmlDeviceGetFieldValues: Function Not Found");
}

TEST(DiscoverFakeNvmlCli, DumpXmlNeedsACudaVisibleGpu) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  test::TempDir dir;
  const auto result = run_command(LINKSCOPE_BINARY, {"topo", "--sysfs-root", snapshot.root(), "--dump-xml", dir.path() + "/t.xml"},
                                  fake_driver());
  EXPECT_EQ(result.exit_code, 3);
  EXPECT_NE(result.err.find("no GPU is visible to CUDA"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace linkscope
