// NVML through dlopen: the tool starts and works offline where the driver is missing, and reports
// "unavailable" with the reason instead of failing to load (aesthetics-ecosystem B.1, as NCCL does).
#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "discover/nvml_api.hpp"
#include "discover/nvml_library.hpp"
#include "discover/nvml_source.hpp"
#include "discover/pci_tree.hpp"

namespace linkscope::discover {

namespace {

std::string p2p_status_name(int status) {
  switch (status) {
    case 0: return "OK";
    case 1: return "CNS";  // chipset not supported
    case 2: return "GNS";  // GPU not supported
    case 3: return "TNS";  // topology not supported
    case 4: return "DRK";  // disabled by registry key (nvidia-smi has no letter for it)
    case 5: return "NS";   // not supported
    default: return "U";   // unknown
  }
}

class NvmlLibrarySource final : public NvmlSource {
 public:
  explicit NvmlLibrarySource(std::string path) : path_(std::move(path)) {}
  NvmlSnapshot read() override;

 private:
  std::string path_;
};

std::vector<int> cpus_from_mask(const unsigned long* words, unsigned count) {
  std::vector<int> cpus;
  constexpr unsigned kBits = sizeof(unsigned long) * 8;
  for (unsigned word = 0; word < count; ++word) {
    for (unsigned bit = 0; bit < kBits; ++bit) {
      if ((words[word] >> bit) & 1UL) cpus.push_back(static_cast<int>(word * kBits + bit));
    }
  }
  return cpus;
}

std::string remote_type_name(int type) {
  switch (type) {
    case nvml::kNvlinkDeviceGpu: return "gpu";
    case nvml::kNvlinkDeviceSwitch: return "nvswitch";
    case nvml::kNvlinkDeviceIbmNpu: return "ibmnpu";
    default: return "unknown";
  }
}

// NVLink facts with a bounded number of NVML calls: one batched field query per quantity for all 18 links,
// then capability, remote PCI info and remote type per present link (at most 3 x 18 calls).
void read_nvlinks(const NvmlApi& api, nvml::Device device, NvmlGpuRecord& gpu) {
  std::string count_error;
  auto count_field = field_per_link(api, device, nvml::kFieldNvlinkLinkCount, 1, count_error);
  unsigned link_count = nvml::kMaxNvlinks;
  bool count_known = false;
  if (count_error.empty()) {
    if (const auto count = field_integer(count_field[0])) {
      link_count = std::min<unsigned>(static_cast<unsigned>(*count), nvml::kMaxNvlinks);
      count_known = true;
    }
  }
  if (link_count == 0) {
    gpu.nvlink_reason = "NVML reports no NVLinks on this GPU";
    return;
  }
  std::string state_error, version_error, speed_error, replay_error, recovery_error, crc_error;
  const auto states = field_per_link(api, device, nvml::kFieldNvlinkState, link_count, state_error);
  const auto versions = field_per_link(api, device, nvml::kFieldNvlinkVersion, link_count, version_error);
  const auto speeds = field_per_link(api, device, nvml::kFieldNvlinkSpeed, link_count, speed_error);
  const auto replays = field_per_link(api, device, nvml::kFieldNvlinkReplayErrors, link_count, replay_error);
  const auto recoveries = field_per_link(api, device, nvml::kFieldNvlinkRecoveryErrors, link_count, recovery_error);
  const auto crcs = field_per_link(api, device, nvml::kFieldNvlinkCrcErrors, link_count, crc_error);
  std::string common_error;
  const auto common_speed = field_per_link(api, device, nvml::kFieldNvlinkSpeedCommon, 1, common_error);

  for (unsigned link = 0; link < link_count; ++link) {
    NvlinkRecord record;
    record.link = link;
    // State: the field (what NCCL reads on sm >= 90), else the older per-link call.
    record.active = map_fact(field_fact<unsigned>(api, states[link], state_error, "NVLINK_GET_STATE"),
                             [](unsigned v) { return v == static_cast<unsigned>(nvml::kFeatureEnabled); });
    if (!record.active.has()) {
      const auto state = ask<int>(api, "nvmlDeviceGetNvLinkState", api.DeviceGetNvLinkState, device, link);
      // A link NVML does not know at all is not a link of this GPU (older GPUs have fewer than 18).
      if (!state.has() && !count_known) break;
      record.active = map_fact(state, [](int v) { return v == nvml::kFeatureEnabled; });
    }
    record.version = field_fact<unsigned>(api, versions[link], version_error, "NVLINK_GET_VERSION");
    if (!record.version.has()) {
      record.version = ask<unsigned>(api, "nvmlDeviceGetNvLinkVersion", api.DeviceGetNvLinkVersion, device, link);
    }
    record.speed_mbyte_s = field_fact<unsigned>(api, speeds[link], speed_error, "NVLINK_GET_SPEED");
    if (!record.speed_mbyte_s.has() && record.active.value_or(false)) {
      record.speed_mbyte_s = field_fact<unsigned>(api, common_speed[0], common_error, "NVLINK_SPEED_MBPS_COMMON");
    }
    record.p2p_supported = map_fact(ask<unsigned>(api, "nvmlDeviceGetNvLinkCapability", api.DeviceGetNvLinkCapability,
                                                  device, link, nvml::kNvlinkCapP2pSupported),
                                    [](unsigned v) { return v != 0; });
    if (record.active.value_or(false)) {
      const auto pci = ask<nvml::PciInfo>(api, "nvmlDeviceGetNvLinkRemotePciInfo_v2", api.DeviceGetNvLinkRemotePciInfo,
                                          device, link);
      record.remote_bus_id = map_fact(pci, [](const nvml::PciInfo& info) {
        std::string id = info.busId;
        std::transform(id.begin(), id.end(), id.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
        return id;
      });
      record.remote_type = map_fact(ask<int>(api, "nvmlDeviceGetNvLinkRemoteDeviceType",
                                             api.DeviceGetNvLinkRemoteDeviceType, device, link),
                                    remote_type_name);
    } else {
      record.remote_bus_id = Fact<std::string>::unknown("link not active");
      record.remote_type = Fact<std::string>::unknown("link not active");
    }
    record.replay_errors = field_fact<unsigned long long>(api, replays[link], replay_error, "NVLINK_ERROR_DL_REPLAY");
    record.recovery_errors =
        field_fact<unsigned long long>(api, recoveries[link], recovery_error, "NVLINK_ERROR_DL_RECOVERY");
    record.crc_errors = field_fact<unsigned long long>(api, crcs[link], crc_error, "NVLINK_ERROR_DL_CRC");
    if (record.active.value_or(false)) {  // older drivers: the per-link counter call
      const auto counter = [&](int which) {
        return ask<unsigned long long>(api, "nvmlDeviceGetNvLinkErrorCounter", api.DeviceGetNvLinkErrorCounter, device,
                                       link, which);
      };
      if (!record.replay_errors.has()) record.replay_errors = counter(nvml::kNvlinkErrorReplay);
      if (!record.recovery_errors.has()) record.recovery_errors = counter(nvml::kNvlinkErrorRecovery);
      if (!record.crc_errors.has()) record.crc_errors = counter(nvml::kNvlinkErrorCrcFlit);
    }
    gpu.nvlinks.push_back(std::move(record));
  }
  if (gpu.nvlinks.empty()) gpu.nvlink_reason = state_error.empty() ? "NVML reports no NVLinks on this GPU" : state_error;
}

void read_c2c(const NvmlApi& api, nvml::Device device, NvmlGpuRecord& gpu) {
  std::string error;
  const auto count = field_per_link(api, device, nvml::kFieldC2cLinkCount, 1, error);
  const auto links = error.empty() ? field_integer(count[0]) : std::nullopt;
  if (!links) {
    gpu.c2c_active_links = Fact<unsigned>::unknown(error.empty() ? api.describe("C2C_LINK_COUNT", count[0].nvmlReturn) : error);
    return;
  }
  std::string status_error, bw_error;
  const auto status = field_per_link(api, device, nvml::kFieldC2cLinkStatus, static_cast<unsigned>(*links), status_error);
  const auto bw = field_per_link(api, device, nvml::kFieldC2cLinkMaxBw, static_cast<unsigned>(*links), bw_error);
  unsigned active = 0;
  std::optional<unsigned long long> last_bw;
  for (unsigned l = 0; l < *links; ++l) {  // NCCL: count of active links, bandwidth of the last one
    if (status_error.empty() && field_integer(status[l]) == 1ULL && bw_error.empty() && field_integer(bw[l])) {
      ++active;
      last_bw = field_integer(bw[l]);
    }
  }
  gpu.c2c_active_links = Fact<unsigned>::known(active);
  gpu.c2c_max_bw_mbyte_s = last_bw ? Fact<unsigned>::known(static_cast<unsigned>(*last_bw))
                                   : Fact<unsigned>::unknown("no active C2C link");
}

std::string fabric_uuid_text(const unsigned char (&uuid)[nvml::kFabricUuidLength]) {
  std::string text;
  for (const unsigned char byte : uuid) text += fmt::format("{:02x}", byte);
  return text;
}

// The versioned call first (it adds the health mask), then the original one of drivers 525-535.
Fact<NvmlFabricRecord> read_fabric(const NvmlApi& api, nvml::Device device) {
  NvmlFabricRecord fabric;
  nvml::Return rc = nvml::kErrorFunctionNotFound;
  if (api.DeviceGetGpuFabricInfoV != nullptr) {
    nvml::GpuFabricInfoV2 info{};
    info.version = nvml::kGpuFabricInfoV2Version;
    rc = api.DeviceGetGpuFabricInfoV(device, &info);
    if (rc == nvml::kSuccess) {
      fabric.state = info.state;
      fabric.status = info.status;
      fabric.clique_id = info.cliqueId;
      fabric.cluster_uuid = fabric_uuid_text(info.clusterUuid);
      fabric.health_mask = Fact<unsigned>::known(info.healthMask);
    }
  }
  if (rc != nvml::kSuccess) {
    if (api.DeviceGetGpuFabricInfo == nullptr) {
      return Fact<NvmlFabricRecord>::unknown(
          rc == nvml::kErrorFunctionNotFound ? missing_symbol("nvmlDeviceGetGpuFabricInfo")
                                             : api.describe("nvmlDeviceGetGpuFabricInfoV", rc));
    }
    nvml::GpuFabricInfo info{};
    rc = api.DeviceGetGpuFabricInfo(device, &info);
    if (rc != nvml::kSuccess) return Fact<NvmlFabricRecord>::unknown(api.describe("nvmlDeviceGetGpuFabricInfo", rc));
    fabric.state = info.state;
    fabric.status = info.status;
    fabric.clique_id = info.cliqueId;
    fabric.cluster_uuid = fabric_uuid_text(info.clusterUuid);
    fabric.health_mask = Fact<unsigned>::unknown("only nvmlDeviceGetGpuFabricInfoV reports the health mask");
  }
  fabric.status_text = api.ErrorString != nullptr ? api.ErrorString(fabric.status) : fmt::format("{}", fabric.status);
  return Fact<NvmlFabricRecord>::known(std::move(fabric));
}

NvmlGpuRecord read_gpu(const NvmlApi& api, unsigned index, nvml::Device device) {
  NvmlGpuRecord gpu;
  gpu.index = index;
  std::array<char, nvml::kUuidBufferSize> uuid{};
  if (api.DeviceGetUUID(device, uuid.data(), static_cast<unsigned>(uuid.size())) == nvml::kSuccess) gpu.uuid = uuid.data();
  std::array<char, nvml::kNameBufferSize> name{};
  if (api.DeviceGetName(device, name.data(), static_cast<unsigned>(name.size())) == nvml::kSuccess) gpu.name = name.data();
  nvml::PciInfo pci{};
  if (api.DeviceGetPciInfo(device, &pci) == nvml::kSuccess) gpu.pci_bus_id = canonical_bdf(pci.busId).value_or(pci.busId);

  int major = 0, minor = 0;
  if (api.DeviceGetCudaComputeCapability == nullptr) {
    gpu.sm = Fact<int>::unknown(missing_symbol("nvmlDeviceGetCudaComputeCapability"));
  } else if (const auto rc = api.DeviceGetCudaComputeCapability(device, &major, &minor); rc == nvml::kSuccess) {
    gpu.sm = Fact<int>::known(major * 10 + minor);
  } else {
    gpu.sm = Fact<int>::unknown(api.describe("nvmlDeviceGetCudaComputeCapability", rc));
  }
  gpu.memory_bytes = map_fact(ask<nvml::Memory>(api, "nvmlDeviceGetMemoryInfo", api.DeviceGetMemoryInfo, device),
                              [](const nvml::Memory& m) { return m.total; });
  gpu.persistence_mode = map_fact(ask<int>(api, "nvmlDeviceGetPersistenceMode", api.DeviceGetPersistenceMode, device),
                                  [](int v) { return v == nvml::kFeatureEnabled; });
  unsigned mig_current = 0, mig_pending = 0;
  if (api.DeviceGetMigMode == nullptr) {
    gpu.mig_enabled = Fact<bool>::unknown(missing_symbol("nvmlDeviceGetMigMode"));
  } else if (const auto rc = api.DeviceGetMigMode(device, &mig_current, &mig_pending); rc == nvml::kSuccess) {
    gpu.mig_enabled = Fact<bool>::known(mig_current == 1);
    gpu.mig_pending = Fact<bool>::known(mig_pending == 1);
  } else if (rc == nvml::kErrorNotSupported) {
    gpu.mig_enabled = Fact<bool>::known(false);  // a GPU without MIG support runs without MIG
    gpu.mig_pending = Fact<bool>::known(false);
  } else {
    gpu.mig_enabled = Fact<bool>::unknown(api.describe("nvmlDeviceGetMigMode", rc));
  }
  gpu.compute_mode = ask<int>(api, "nvmlDeviceGetComputeMode", api.DeviceGetComputeMode, device);
  gpu.pcie_current_gen = ask<unsigned>(api, "nvmlDeviceGetCurrPcieLinkGeneration", api.DeviceGetCurrPcieLinkGeneration, device);
  gpu.pcie_max_gen = ask<unsigned>(api, "nvmlDeviceGetMaxPcieLinkGeneration", api.DeviceGetMaxPcieLinkGeneration, device);
  gpu.pcie_current_width = ask<unsigned>(api, "nvmlDeviceGetCurrPcieLinkWidth", api.DeviceGetCurrPcieLinkWidth, device);
  gpu.pcie_max_width = ask<unsigned>(api, "nvmlDeviceGetMaxPcieLinkWidth", api.DeviceGetMaxPcieLinkWidth, device);
  gpu.sm_clock_mhz = ask<unsigned>(api, "nvmlDeviceGetClockInfo", api.DeviceGetClockInfo, device, nvml::kClockSm);
  gpu.sm_max_clock_mhz = ask<unsigned>(api, "nvmlDeviceGetMaxClockInfo", api.DeviceGetMaxClockInfo, device, nvml::kClockSm);
  gpu.mem_clock_mhz = ask<unsigned>(api, "nvmlDeviceGetClockInfo", api.DeviceGetClockInfo, device, nvml::kClockMem);
  gpu.mem_max_clock_mhz = ask<unsigned>(api, "nvmlDeviceGetMaxClockInfo", api.DeviceGetMaxClockInfo, device, nvml::kClockMem);
  gpu.memory_bus_width_bits = ask<unsigned>(api, "nvmlDeviceGetMemoryBusWidth", api.DeviceGetMemoryBusWidth, device);
  gpu.clock_event_reasons =
      ask<unsigned long long>(api, api.clock_event_reasons_symbol, api.DeviceGetClockEventReasons, device);

  int ecc_current = 0, ecc_pending = 0;
  if (api.DeviceGetEccMode == nullptr) {
    gpu.ecc_enabled = Fact<bool>::unknown(missing_symbol("nvmlDeviceGetEccMode"));
  } else if (const auto rc = api.DeviceGetEccMode(device, &ecc_current, &ecc_pending); rc == nvml::kSuccess) {
    gpu.ecc_enabled = Fact<bool>::known(ecc_current == nvml::kFeatureEnabled);
  } else {
    gpu.ecc_enabled = Fact<bool>::unknown(api.describe("nvmlDeviceGetEccMode", rc));
  }
  const auto ecc = [&](int type, int counter) {
    return ask<unsigned long long>(api, "nvmlDeviceGetTotalEccErrors", api.DeviceGetTotalEccErrors, device, type, counter);
  };
  gpu.ecc_volatile_corrected = ecc(nvml::kMemoryErrorCorrected, nvml::kVolatileEcc);
  gpu.ecc_volatile_uncorrected = ecc(nvml::kMemoryErrorUncorrected, nvml::kVolatileEcc);
  gpu.ecc_aggregate_corrected = ecc(nvml::kMemoryErrorCorrected, nvml::kAggregateEcc);
  gpu.ecc_aggregate_uncorrected = ecc(nvml::kMemoryErrorUncorrected, nvml::kAggregateEcc);

  constexpr unsigned kMaskWords = 64;  // 4096 CPUs
  std::array<unsigned long, kMaskWords> mask{};
  if (api.DeviceGetCpuAffinity == nullptr) {
    gpu.cpu_affinity = Fact<std::vector<int>>::unknown(missing_symbol("nvmlDeviceGetCpuAffinity"));
  } else if (const auto rc = api.DeviceGetCpuAffinity(device, kMaskWords, mask.data()); rc == nvml::kSuccess) {
    gpu.cpu_affinity = Fact<std::vector<int>>::known(cpus_from_mask(mask.data(), kMaskWords));
  } else {
    gpu.cpu_affinity = Fact<std::vector<int>>::unknown(api.describe("nvmlDeviceGetCpuAffinity", rc));
  }
  gpu.gpu_numa_node = map_fact(ask<unsigned>(api, "nvmlDeviceGetNumaNodeId", api.DeviceGetNumaNodeId, device),
                               [](unsigned v) { return static_cast<int>(v); });
  const auto utilization = ask<nvml::Utilization>(api, "nvmlDeviceGetUtilizationRates", api.DeviceGetUtilizationRates, device);
  gpu.utilization_gpu_percent = map_fact(utilization, [](const nvml::Utilization& u) { return u.gpu; });
  gpu.utilization_memory_percent = map_fact(utilization, [](const nvml::Utilization& u) { return u.memory; });
  gpu.processes = list_processes(api, device);
  if (gpu.processes.has()) {
    for (auto& process : *gpu.processes.value) process.name = process_name(api, process.pid);
  }
  read_nvlinks(api, device, gpu);
  if (gpu.sm.value_or(0) >= 90) {
    read_c2c(api, device, gpu);
  } else {
    gpu.c2c_active_links = Fact<unsigned>::unknown("C2C exists only on sm >= 90 (Grace Hopper and later)");
  }
  gpu.fabric = read_fabric(api, device);
  return gpu;
}

NvmlPairRecord read_pair(const NvmlApi& api, unsigned a, nvml::Device da, unsigned b, nvml::Device db) {
  NvmlPairRecord pair;
  pair.a = a;
  pair.b = b;
  pair.topology_level = ask<int>(api, "nvmlDeviceGetTopologyCommonAncestor", api.DeviceGetTopologyCommonAncestor, da, db);
  const auto status = [&](int caps) {
    return map_fact(ask<int>(api, "nvmlDeviceGetP2PStatus", api.DeviceGetP2PStatus, da, db, caps), p2p_status_name);
  };
  pair.p2p_read = status(nvml::kP2pCapsRead);
  pair.p2p_write = status(nvml::kP2pCapsWrite);
  pair.p2p_nvlink = status(nvml::kP2pCapsNvlink);
  pair.p2p_atomics = status(nvml::kP2pCapsAtomics);
  return pair;
}

NvmlSnapshot NvmlLibrarySource::read() {
  NvmlSnapshot snapshot;
  NvmlApi api;
  api.path = path_;
  snapshot.library = path_;
  if (!open_nvml_api(api, snapshot.reason)) return snapshot;
  if (const nvml::Return rc = api.Init(); rc != nvml::kSuccess) {
    snapshot.reason = fmt::format("NVML did not start ({}); is the NVIDIA kernel driver loaded?", api.describe("nvmlInit_v2", rc));
    return snapshot;  // the library stays loaded: unloading NVML is not supported by all drivers
  }
  snapshot.available = true;
  std::array<char, nvml::kDriverVersionBufferSize> version{};
  if (api.SystemGetDriverVersion == nullptr) {
    snapshot.driver_version = Fact<std::string>::unknown(missing_symbol("nvmlSystemGetDriverVersion"));
  } else if (const auto rc = api.SystemGetDriverVersion(version.data(), static_cast<unsigned>(version.size()));
             rc == nvml::kSuccess) {
    snapshot.driver_version = Fact<std::string>::known(version.data());
  } else {
    snapshot.driver_version = Fact<std::string>::unknown(api.describe("nvmlSystemGetDriverVersion", rc));
  }
  snapshot.cuda_driver_version = ask<int>(api, "nvmlSystemGetCudaDriverVersion", api.SystemGetCudaDriverVersion);

  unsigned count = 0;
  if (const nvml::Return rc = api.DeviceGetCount(&count); rc != nvml::kSuccess) {
    snapshot.available = false;
    snapshot.reason = api.describe("nvmlDeviceGetCount_v2", rc);
    api.Shutdown();
    return snapshot;
  }
  std::vector<std::pair<unsigned, nvml::Device>> devices;
  for (unsigned index = 0; index < count; ++index) {
    nvml::Device device = nullptr;
    if (const nvml::Return rc = api.DeviceGetHandleByIndex(index, &device); rc != nvml::kSuccess) {
      // One GPU NVML cannot open (lost, no permission) is recorded; the others are still described.
      snapshot.errors.push_back(fmt::format("NVML GPU {}: {}", index, api.describe("nvmlDeviceGetHandleByIndex_v2", rc)));
      continue;
    }
    devices.emplace_back(index, device);
    snapshot.gpus.push_back(read_gpu(api, index, device));
  }
  for (const auto& [a, da] : devices) {
    for (const auto& [b, db] : devices) {
      if (a != b) snapshot.pairs.push_back(read_pair(api, a, da, b, db));
    }
  }
  api.Shutdown();
  return snapshot;
}

}  // namespace

std::unique_ptr<NvmlSource> make_nvml_library_source(const std::string& library_path) {
  return std::make_unique<NvmlLibrarySource>(library_path.empty() ? "libnvidia-ml.so.1" : library_path);
}

std::vector<std::string> clock_event_reason_names(unsigned long long mask) {
  static const std::array<const char*, 9> kNames = {
      "gpu_idle",                 // 0x1
      "applications_clocks_setting",  // 0x2
      "sw_power_cap",             // 0x4
      "hw_slowdown",              // 0x8
      "sync_boost",               // 0x10
      "sw_thermal_slowdown",      // 0x20
      "hw_thermal_slowdown",      // 0x40
      "hw_power_brake_slowdown",  // 0x80
      "display_clock_setting",    // 0x100
  };
  std::vector<std::string> names;
  for (std::size_t bit = 0; bit < 64; ++bit) {
    if (!((mask >> bit) & 1ULL)) continue;
    names.push_back(bit < kNames.size() ? kNames[bit] : fmt::format("reason_bit_{}", bit));
  }
  return names;
}

}  // namespace linkscope::discover
