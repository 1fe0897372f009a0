// Self-consistency of the live machine's facts (needs a GPU and its driver; skips cleanly otherwise).
#include <cstdlib>
#include <set>

#include "device_test_support.hpp"
#include "discover/live_discovery.hpp"
#include "platform/cuda_facts.hpp"

namespace linkscope {
namespace {

discover::LiveDiscovery discover_this_machine() {
  const char* library = std::getenv("LINKSCOPE_NVML_LIBRARY");
  auto nvml = discover::make_nvml_library_source(library != nullptr ? library : "");
  auto cuda = platform::make_cuda_runtime_source();
  discover::LiveDiscoveryOptions options;
  options.ask_nccl = false;
  return discover::discover_live(*nvml, *cuda, Environment::from_process(), options);
}

TEST(DiscoverDevice, CudaDevicesAreNvmlGpusWithTheSameBusIdAndUuid) {
  LINKSCOPE_REQUIRE_GPUS(1);
  const auto live = discover_this_machine();
  const auto& facts = live.facts;
  ASSERT_TRUE(facts.driver.available) << facts.driver.reason;
  ASSERT_TRUE(facts.cuda.available) << facts.cuda.reason;
  EXPECT_GE(facts.nvml_gpu_count(), facts.cuda.device_count);
  std::set<int> ordinals;
  for (const auto& gpu : facts.gpus) {
    if (!gpu.cuda_ordinal) {
      EXPECT_FALSE(gpu.hidden_reason.empty()) << gpu.pci_bdf;
      continue;
    }
    ordinals.insert(*gpu.cuda_ordinal);
    ASSERT_TRUE(gpu.cuda.has_value());
    ASSERT_TRUE(gpu.nvml.has_value());
    EXPECT_EQ(gpu.cuda->pci_bus_id, gpu.nvml->pci_bus_id);
    if (gpu.cuda->uuid.rfind("GPU-", 0) == 0) {  // a MIG instance has its own UUID
      EXPECT_EQ(gpu.cuda->uuid, gpu.nvml->uuid);
    }
    EXPECT_EQ(gpu.cuda->sm, gpu.nvml->sm.value_or(-1)) << gpu.pci_bdf;
    EXPECT_TRUE(gpu.pci.has_value()) << gpu.pci_bdf << " is not in /sys/bus/pci/devices";
  }
  EXPECT_EQ(static_cast<int>(ordinals.size()), facts.cuda.device_count) << "every CUDA device maps to one NVML GPU";
  EXPECT_EQ(static_cast<int>(facts.mapping.hidden.size()), facts.nvml_gpu_count() - facts.cuda.device_count);
}

TEST(DiscoverDevice, PeerAccessAndRelationsAreSymmetric) {
  LINKSCOPE_REQUIRE_GPUS(2);
  const auto live = discover_this_machine();
  const auto& pairs = live.facts.pairs;
  for (const auto& pair : pairs) {
    for (const auto& reverse : pairs) {
      if (reverse.a_nvml != pair.b_nvml || reverse.b_nvml != pair.a_nvml) continue;
      EXPECT_EQ(pair.relation.value_or("?"), reverse.relation.value_or("?"));
      if (pair.cuda && reverse.cuda) {
        EXPECT_EQ(pair.cuda->can_access_peer.value_or(false), reverse.cuda->can_access_peer.value_or(false))
            << "CUDA " << *pair.a_cuda << " <-> " << *pair.b_cuda;
      }
    }
  }
}

TEST(DiscoverDevice, NvlinkFactsAreReadableAndTheXmlHasEveryCudaGpu) {
  LINKSCOPE_REQUIRE_GPUS(1);
  const auto live = discover_this_machine();
  for (const auto& gpu : live.facts.gpus) {
    if (!gpu.nvml) continue;
    for (const auto& link : gpu.nvml->nvlinks) {
      if (!link.active.value_or(false)) continue;
      EXPECT_TRUE(link.speed_mbyte_s.has()) << gpu.pci_bdf << " link " << link.link << ": " << link.speed_mbyte_s.reason;
      EXPECT_TRUE(link.remote_bus_id.has()) << gpu.pci_bdf << " link " << link.link << ": " << link.remote_bus_id.reason;
    }
  }
  EXPECT_EQ(live.synthesized.gpu_count, live.facts.cuda.device_count);
  EXPECT_NE(live.synthesized.xml.find("<system version=\"1\">"), std::string::npos);
}

}  // namespace
}  // namespace linkscope
