#include <gtest/gtest.h>

#include "discover/system_model.hpp"
#include "discover/system_facts.hpp"
#include "discover/visibility.hpp"
#include "discover_recorded_h200x2.hpp"
#include "discover_snapshot.hpp"

namespace linkscope::discover {
namespace {

Environment env_with(std::map<std::string, std::string> variables) { return Environment::from_map(std::move(variables)); }

SystemFacts h200x2_facts(const std::vector<unsigned>& visible, const Environment& env, const std::string& sysfs_root) {
  const NvmlSnapshot nvml = test::h200x2_nvml_snapshot();
  return assemble_system_facts(read_host_facts(SysfsRoot(sysfs_root)), nvml, test::h200x2_cuda_snapshot(nvml, visible), env);
}

TEST(DiscoverFacts, RecordedH200x2CaptureReadsBack) {
  const NvmlSnapshot nvml = test::h200x2_nvml_snapshot();
  ASSERT_EQ(nvml.gpus.size(), 2u);
  EXPECT_EQ(nvml.gpus[1].uuid, "GPU-005980e6-efd3-0254-f791-a39d369f7e24");
  EXPECT_EQ(nvml.gpus[0].pci_bus_id, "0000:00:06.0");
  ASSERT_EQ(nvml.gpus[0].nvlinks.size(), 18u);
  EXPECT_EQ(*nvml.gpus[0].nvlinks[17].speed_mbyte_s, 26562u);
  EXPECT_EQ(*nvml.gpus[0].clock_event_reasons, 1ULL);  // gpu_idle
  EXPECT_EQ(clock_event_reason_names(*nvml.gpus[0].clock_event_reasons), (std::vector<std::string>{"gpu_idle"}));
  EXPECT_EQ(*nvml.driver_version, "580.159.04");
}

TEST(DiscoverFacts, H200x2PairsAreNv18BothWaysThroughTheSwitch) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  const SystemFacts facts = h200x2_facts({0, 1}, env_with({}), snapshot.root());
  ASSERT_EQ(facts.gpus.size(), 2u);
  EXPECT_EQ(facts.gpus[0].cuda_ordinal, 0);
  EXPECT_EQ(facts.gpus[1].cuda_ordinal, 1);
  ASSERT_TRUE(facts.gpus[0].pci.has_value());
  EXPECT_EQ(facts.gpus[0].pci->max_link_speed, "32.0 GT/s PCIe");
  EXPECT_FALSE(facts.gpus[0].numa_node.has());  // numa_node = -1 in the VM
  EXPECT_EQ(facts.gpus[0].numa_affinity, (std::vector<int>{0}));  // as nvidia-smi's "NUMA Affinity 0"
  ASSERT_EQ(facts.pairs.size(), 2u);
  for (const auto& pair : facts.pairs) {
    EXPECT_EQ(*pair.relation, "NV18");
    EXPECT_EQ(pair.nvlink_count, 18u);
    EXPECT_TRUE(pair.via_nvswitch);
    ASSERT_TRUE(pair.cuda.has_value());
    EXPECT_TRUE(*pair.cuda->can_access_peer);
    EXPECT_EQ(*pair.nvml->p2p_read, "OK");
  }
  EXPECT_TRUE(facts.mapping.hidden.empty());
}

TEST(DiscoverFacts, CudaVisibleDevicesHidesAGpuAndSaysSo) {
  const SystemFacts facts = h200x2_facts({1}, env_with({{"CUDA_VISIBLE_DEVICES", "1"}}), "/nonexistent-root");
  EXPECT_EQ(facts.cuda.device_count, 1);
  EXPECT_EQ(facts.nvml_gpu_count(), 2);
  EXPECT_EQ(facts.gpus[1].cuda_ordinal, 0);  // NVML 1 (0000:00:07.0) is CUDA 0
  EXPECT_FALSE(facts.gpus[0].cuda_ordinal.has_value());
  ASSERT_EQ(facts.mapping.hidden.size(), 1u);
  EXPECT_EQ(facts.mapping.hidden[0].pci_bdf, "0000:00:06.0");
  EXPECT_EQ(facts.mapping.hidden[0].reason, "CUDA_VISIBLE_DEVICES=1 does not select it");
  EXPECT_EQ(facts.gpu_by_cuda_ordinal(0)->pci_bdf, "0000:00:07.0");
  // Pairs still cover both NVML GPUs (as nvidia-smi topo -m), without CUDA facts for the hidden one.
  ASSERT_EQ(facts.pairs.size(), 2u);
  EXPECT_FALSE(facts.pairs[0].cuda.has_value());
}

TEST(DiscoverFacts, VisibleDevicesParsingFollowsTheRuntime) {
  const NvmlSnapshot nvml = test::h200x2_nvml_snapshot();
  auto pick = [&](const std::string& text) { return select_visible_devices(text, std::nullopt, nvml.gpus); };
  EXPECT_EQ(pick("1,0").nvml_indices, (std::vector<unsigned>{1, 0}));
  EXPECT_EQ(pick("GPU-0059").nvml_indices, (std::vector<unsigned>{1}));  // a unique UUID prefix
  EXPECT_EQ(pick("GPU-005980e6-efd3-0254-f791-a39d369f7e24,0").nvml_indices, (std::vector<unsigned>{1, 0}));
  const auto stopped = pick("0,7,1");  // CUDA stops at the first unusable entry
  EXPECT_EQ(stopped.nvml_indices, (std::vector<unsigned>{0}));
  EXPECT_EQ(stopped.spec.stopped_at, "7");
  EXPECT_EQ(pick("0,0").nvml_indices, (std::vector<unsigned>{0}));
  EXPECT_EQ(pick("GPU-").spec.stop_reason, "this UUID prefix matches several GPUs");
  EXPECT_TRUE(pick("").nvml_indices.empty());
  EXPECT_TRUE(pick("MIG-4d0c3a8e-aaaa").has_mig_entries);
  EXPECT_EQ(select_visible_devices(std::nullopt, std::nullopt, nvml.gpus).nvml_indices, (std::vector<unsigned>{0, 1}));
}

TEST(DiscoverFacts, HiddenReasonsForMigAndUnopenableGpus) {
  NvmlSnapshot nvml = test::h200x2_nvml_snapshot();
  nvml.gpus[0].mig_enabled = Fact<bool>::known(true);
  const CudaSnapshot cuda = test::h200x2_cuda_snapshot(nvml, {1});
  const DeviceMapping mig = map_devices(nvml, cuda, env_with({}));
  ASSERT_EQ(mig.hidden.size(), 1u);
  EXPECT_NE(mig.hidden[0].reason.find("MIG mode is enabled"), std::string::npos) << mig.hidden[0].reason;

  nvml.gpus[0].mig_enabled = Fact<bool>::known(false);
  const DeviceMapping broken = map_devices(nvml, cuda, env_with({}));
  EXPECT_NE(broken.hidden[0].reason.find("cannot be opened by CUDA"), std::string::npos) << broken.hidden[0].reason;

  const DeviceMapping no_cuda = map_devices(nvml, test::h200x2_cuda_snapshot(nvml, {}), env_with({}));
  ASSERT_EQ(no_cuda.hidden.size(), 2u);
  EXPECT_NE(no_cuda.hidden[0].reason.find("no CUDA-capable device"), std::string::npos) << no_cuda.hidden[0].reason;
}

TEST(DiscoverFacts, MappingIsByBusIdNotByPosition) {
  const NvmlSnapshot nvml = test::h200x2_nvml_snapshot();
  const SystemFacts facts =
      assemble_system_facts(HostFacts{}, nvml, test::h200x2_cuda_snapshot(nvml, {1, 0}), env_with({{"CUDA_VISIBLE_DEVICES", "1,0"}}));
  EXPECT_EQ(facts.gpus[0].cuda_ordinal, 1);
  EXPECT_EQ(facts.gpus[1].cuda_ordinal, 0);
  EXPECT_TRUE(facts.mapping.hidden.empty());
}

TEST(DiscoverFacts, NoDriverKeepsSysfsFactsAndReasons) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  NvmlSnapshot nvml;
  nvml.reason = "NVIDIA driver library not loadable: dlopen(libnvidia-ml.so.1) failed";
  CudaSnapshot cuda;
  cuda.reason = "cudaGetDeviceCount: CUDA driver version is insufficient";
  const SystemFacts facts = assemble_system_facts(read_host_facts(SysfsRoot(snapshot.root())), nvml, cuda, env_with({}));
  EXPECT_TRUE(facts.gpus.empty());
  EXPECT_TRUE(facts.pairs.empty());
  EXPECT_EQ(sysfs_display_devices(facts.host).size(), 2u);
  const nlohmann::json json = model::to_json(system_model(facts));
  EXPECT_FALSE(json["driver"]["available"].get<bool>());
  EXPECT_EQ(json["driver"]["reason"], nvml.reason);
  EXPECT_TRUE(json["driver"]["version"].is_null());
  EXPECT_EQ(json["pci_display_devices"].size(), 2u);
  EXPECT_EQ(json["pci_display_devices"][0]["pci_bdf"], "0000:00:06.0");
  EXPECT_EQ(json["nics"][0]["name"], "eth0");
  EXPECT_TRUE(json["nics"][0].contains("speed_mbps"));
}

TEST(DiscoverFacts, SystemJsonFollowsTheSchema) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  const SystemFacts facts = h200x2_facts({1}, env_with({{"CUDA_VISIBLE_DEVICES", "1"}}), snapshot.root());
  const nlohmann::json json = model::to_json(system_model(facts));
  EXPECT_EQ(json["driver"]["version"], "580.159.04");
  EXPECT_EQ(json["driver"]["cuda_driver_version"], 13000);
  EXPECT_EQ(json["cuda"]["device_count"], 1);
  // `gpus` and `pairs` hold what CUDA shows; the hidden GPU keeps its facts under `visibility`.
  ASSERT_EQ(json["gpus"].size(), 1u);
  const auto& gpu1 = json["gpus"][0];
  EXPECT_EQ(gpu1["cuda_ordinal"], 0);
  EXPECT_EQ(gpu1["nvml_index"], 1);
  EXPECT_EQ(gpu1["pci_bdf"], "0000:00:07.0");
  EXPECT_EQ(gpu1["sm"], 90);
  EXPECT_EQ(gpu1["cpu_affinity"], "0-31");
  EXPECT_TRUE(gpu1["numa_node"].is_null());
  EXPECT_NE(gpu1["numa_node_reason"].get<std::string>().find("-1"), std::string::npos);
  EXPECT_EQ(gpu1["pcie"]["max_gen"], 5);
  EXPECT_EQ(gpu1["pcie"]["current_speed"], "32.0 GT/s PCIe");
  EXPECT_FALSE(gpu1["pcie"]["width_degraded"].get<bool>());
  EXPECT_EQ(gpu1["mig_mode"], "disabled");
  EXPECT_EQ(gpu1["throttle_reasons"], nlohmann::json::array({"gpu_idle"}));
  EXPECT_EQ(gpu1["nvlinks"].size(), 18u);
  EXPECT_EQ(gpu1["nvlinks"][0]["remote_type"], "nvswitch");
  EXPECT_TRUE(gpu1["nvlinks"][0]["speed_gbps"].is_null());  // GPU 1 is not in the nvlink -s capture
  EXPECT_TRUE(json["pairs"].empty());
  const auto& hidden = json["visibility"]["hidden"][0];
  EXPECT_EQ(hidden["uuid"], "GPU-db0b843c-9616-d6f1-74d8-de3fe79dca28");
  EXPECT_EQ(hidden["reason"], "CUDA_VISIBLE_DEVICES=1 does not select it");
  EXPECT_TRUE(hidden["gpu"]["cuda_ordinal"].is_null());
  EXPECT_EQ(hidden["gpu"]["nvlinks"][0]["speed_gbps"], 26.562);
  EXPECT_EQ(hidden["gpu"]["nvlinks"][0]["errors"]["replay"], 0);
  const auto& hidden_pair = json["visibility"]["hidden_pairs"][0];
  EXPECT_EQ(hidden_pair["relation"], "NV18");
  EXPECT_FALSE(hidden_pair.contains("a"));  // consumers read a/b as CUDA ordinals
  EXPECT_EQ(hidden_pair["a_nvml_index"], 0);
  EXPECT_TRUE(hidden_pair["cuda_peer_access"].is_null());
  EXPECT_EQ(json["visibility"]["nvml_gpu_count"], 2);
  EXPECT_EQ(json["visibility"]["cuda_device_count"], 1);
  EXPECT_EQ(json["numa_nodes"][0]["cpus"], "0-31");
  EXPECT_EQ(json["cpu"]["model_id"], 207);
}

}  // namespace
}  // namespace linkscope::discover
