// NVML through dlopen: the tool starts and works offline where the driver is missing, and reports
// "unavailable" with the reason instead of failing to load (aesthetics-ecosystem B.1, as NCCL does).
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "discover/nvml_api.hpp"
#include "discover/nvml_source.hpp"
#include "discover/pci_tree.hpp"

namespace linkscope::discover {

namespace {

struct Api {
  std::string path;
  void* handle = nullptr;
  nvml::InitFn Init = nullptr;
  nvml::ShutdownFn Shutdown = nullptr;
  nvml::ErrorStringFn ErrorString = nullptr;
  nvml::SystemGetDriverVersionFn SystemGetDriverVersion = nullptr;
  nvml::SystemGetCudaDriverVersionFn SystemGetCudaDriverVersion = nullptr;
  nvml::SystemGetProcessNameFn SystemGetProcessName = nullptr;
  nvml::DeviceGetCountFn DeviceGetCount = nullptr;
  nvml::DeviceGetHandleByIndexFn DeviceGetHandleByIndex = nullptr;
  nvml::DeviceGetPciInfoFn DeviceGetPciInfo = nullptr;
  nvml::DeviceGetStringFn DeviceGetUUID = nullptr;
  nvml::DeviceGetStringFn DeviceGetName = nullptr;
  nvml::DeviceGetIntPairFn DeviceGetCudaComputeCapability = nullptr;
  nvml::DeviceGetMemoryInfoFn DeviceGetMemoryInfo = nullptr;
  nvml::DeviceGetIntFn DeviceGetPersistenceMode = nullptr;
  nvml::DeviceGetUintPairFn DeviceGetMigMode = nullptr;
  nvml::DeviceGetIntFn DeviceGetComputeMode = nullptr;
  nvml::DeviceGetUintFn DeviceGetCurrPcieLinkGeneration = nullptr;
  nvml::DeviceGetUintFn DeviceGetMaxPcieLinkGeneration = nullptr;
  nvml::DeviceGetUintFn DeviceGetCurrPcieLinkWidth = nullptr;
  nvml::DeviceGetUintFn DeviceGetMaxPcieLinkWidth = nullptr;
  nvml::DeviceGetClockFn DeviceGetClockInfo = nullptr;
  nvml::DeviceGetClockFn DeviceGetMaxClockInfo = nullptr;
  nvml::DeviceGetUllFn DeviceGetClockEventReasons = nullptr;
  const char* clock_event_reasons_symbol = "nvmlDeviceGetCurrentClocksEventReasons";
  nvml::DeviceGetIntEnumPairFn DeviceGetEccMode = nullptr;
  nvml::DeviceGetTotalEccErrorsFn DeviceGetTotalEccErrors = nullptr;
  nvml::DeviceGetCpuAffinityFn DeviceGetCpuAffinity = nullptr;
  nvml::DeviceGetUintFn DeviceGetNumaNodeId = nullptr;
  nvml::DeviceGetUtilizationRatesFn DeviceGetUtilizationRates = nullptr;
  nvml::DeviceGetProcessesFn DeviceGetComputeRunningProcesses = nullptr;
  nvml::DeviceGetFieldValuesFn DeviceGetFieldValues = nullptr;
  nvml::DeviceGetNvLinkCapabilityFn DeviceGetNvLinkCapability = nullptr;
  nvml::DeviceGetNvLinkStateFn DeviceGetNvLinkState = nullptr;
  nvml::DeviceGetNvLinkVersionFn DeviceGetNvLinkVersion = nullptr;
  nvml::DeviceGetNvLinkRemotePciInfoFn DeviceGetNvLinkRemotePciInfo = nullptr;
  nvml::DeviceGetNvLinkRemoteDeviceTypeFn DeviceGetNvLinkRemoteDeviceType = nullptr;
  nvml::DeviceGetNvLinkErrorCounterFn DeviceGetNvLinkErrorCounter = nullptr;
  nvml::DeviceGetTopologyCommonAncestorFn DeviceGetTopologyCommonAncestor = nullptr;
  nvml::DeviceGetP2PStatusFn DeviceGetP2PStatus = nullptr;

  std::string describe(const char* call, nvml::Return rc) const {
    const char* text = ErrorString != nullptr ? ErrorString(rc) : nullptr;
    return text != nullptr ? fmt::format("{}: {}", call, text) : fmt::format("{}: NVML error {}", call, rc);
  }
};

std::string missing_symbol(const char* name) { return fmt::format("{} is not in this NVML (driver too old)", name); }

template <typename Fn>
void resolve(void* handle, Fn& slot, const char* name) {
  slot = reinterpret_cast<Fn>(dlsym(handle, name));
}

// Calls `fn(args..., &raw)` and turns the outcome into a Fact.
template <typename Raw, typename Fn, typename... Args>
Fact<Raw> ask(const Api& api, const char* name, Fn fn, Args... args) {
  if (fn == nullptr) return Fact<Raw>::unknown(missing_symbol(name));
  Raw raw{};
  const nvml::Return rc = fn(args..., &raw);
  if (rc != nvml::kSuccess) return Fact<Raw>::unknown(api.describe(name, rc));
  return Fact<Raw>::known(raw);
}

template <typename T, typename F>
auto map_fact(const Fact<T>& fact, F convert) -> Fact<decltype(convert(*fact))> {
  using Out = decltype(convert(*fact));
  return fact.has() ? Fact<Out>::known(convert(*fact)) : Fact<Out>::unknown(fact.reason);
}

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

// One field per link: `field` with scopeId = link for links 0..count-1. Entries the driver rejects keep
// their own nvmlReturn; a failing call marks all of them.
std::vector<nvml::FieldValue> field_per_link(const Api& api, nvml::Device device, unsigned field, unsigned count,
                                             std::string& call_error) {
  std::vector<nvml::FieldValue> values(count);
  for (unsigned link = 0; link < count; ++link) {
    values[link] = {};
    values[link].fieldId = field;
    values[link].scopeId = link;
  }
  if (api.DeviceGetFieldValues == nullptr) {
    call_error = missing_symbol("nvmlDeviceGetFieldValues");
  } else if (count > 0) {
    const nvml::Return rc = api.DeviceGetFieldValues(device, static_cast<int>(count), values.data());
    if (rc != nvml::kSuccess) call_error = api.describe("nvmlDeviceGetFieldValues", rc);
  }
  return values;
}

std::optional<unsigned long long> field_integer(const nvml::FieldValue& value) {
  if (value.nvmlReturn != nvml::kSuccess) return std::nullopt;
  switch (value.valueType) {
    case nvml::kValueUnsignedLong: return value.value.ulVal;
    case nvml::kValueUnsignedLongLong: return value.value.ullVal;
    default: return value.value.uiVal;  // unsigned int is what the NVLink fields return
  }
}

template <typename T>
Fact<T> field_fact(const Api& api, const nvml::FieldValue& value, const std::string& call_error, const char* what) {
  if (!call_error.empty()) return Fact<T>::unknown(call_error);
  if (const auto number = field_integer(value)) return Fact<T>::known(static_cast<T>(*number));
  return Fact<T>::unknown(api.describe(what, value.nvmlReturn));
}

class NvmlLibrarySource final : public NvmlSource {
 public:
  explicit NvmlLibrarySource(std::string path) : path_(std::move(path)) {}
  NvmlSnapshot read() override;

 private:
  std::string path_;
};

bool open_api(Api& api, NvmlSnapshot& snapshot) {
  api.handle = dlopen(api.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (api.handle == nullptr) {
    const char* why = dlerror();
    snapshot.reason = fmt::format("dlopen({}) failed: {}", api.path, why != nullptr ? why : "unknown reason");
    return false;
  }
  resolve(api.handle, api.Init, "nvmlInit_v2");
  resolve(api.handle, api.Shutdown, "nvmlShutdown");
  resolve(api.handle, api.ErrorString, "nvmlErrorString");
  resolve(api.handle, api.DeviceGetCount, "nvmlDeviceGetCount_v2");
  resolve(api.handle, api.DeviceGetHandleByIndex, "nvmlDeviceGetHandleByIndex_v2");
  resolve(api.handle, api.DeviceGetPciInfo, "nvmlDeviceGetPciInfo_v3");
  resolve(api.handle, api.DeviceGetUUID, "nvmlDeviceGetUUID");
  resolve(api.handle, api.DeviceGetName, "nvmlDeviceGetName");
  for (const auto& [slot, name] : {std::pair<bool, const char*>{api.Init != nullptr, "nvmlInit_v2"},
                                   {api.Shutdown != nullptr, "nvmlShutdown"},
                                   {api.DeviceGetCount != nullptr, "nvmlDeviceGetCount_v2"},
                                   {api.DeviceGetHandleByIndex != nullptr, "nvmlDeviceGetHandleByIndex_v2"},
                                   {api.DeviceGetPciInfo != nullptr, "nvmlDeviceGetPciInfo_v3"},
                                   {api.DeviceGetUUID != nullptr, "nvmlDeviceGetUUID"},
                                   {api.DeviceGetName != nullptr, "nvmlDeviceGetName"}}) {
    if (!slot) {
      snapshot.reason = fmt::format("{} lacks {}: not NVML, or a driver too old for linkscope", api.path, name);
      return false;
    }
  }
  resolve(api.handle, api.SystemGetDriverVersion, "nvmlSystemGetDriverVersion");
  resolve(api.handle, api.SystemGetCudaDriverVersion, "nvmlSystemGetCudaDriverVersion");
  resolve(api.handle, api.SystemGetProcessName, "nvmlSystemGetProcessName");
  resolve(api.handle, api.DeviceGetCudaComputeCapability, "nvmlDeviceGetCudaComputeCapability");
  resolve(api.handle, api.DeviceGetMemoryInfo, "nvmlDeviceGetMemoryInfo");
  resolve(api.handle, api.DeviceGetPersistenceMode, "nvmlDeviceGetPersistenceMode");
  resolve(api.handle, api.DeviceGetMigMode, "nvmlDeviceGetMigMode");
  resolve(api.handle, api.DeviceGetComputeMode, "nvmlDeviceGetComputeMode");
  resolve(api.handle, api.DeviceGetCurrPcieLinkGeneration, "nvmlDeviceGetCurrPcieLinkGeneration");
  resolve(api.handle, api.DeviceGetMaxPcieLinkGeneration, "nvmlDeviceGetMaxPcieLinkGeneration");
  resolve(api.handle, api.DeviceGetCurrPcieLinkWidth, "nvmlDeviceGetCurrPcieLinkWidth");
  resolve(api.handle, api.DeviceGetMaxPcieLinkWidth, "nvmlDeviceGetMaxPcieLinkWidth");
  resolve(api.handle, api.DeviceGetClockInfo, "nvmlDeviceGetClockInfo");
  resolve(api.handle, api.DeviceGetMaxClockInfo, "nvmlDeviceGetMaxClockInfo");
  resolve(api.handle, api.DeviceGetClockEventReasons, "nvmlDeviceGetCurrentClocksEventReasons");
  if (api.DeviceGetClockEventReasons == nullptr) {  // drivers before 535 only have the older name
    api.clock_event_reasons_symbol = "nvmlDeviceGetCurrentClocksThrottleReasons";
    resolve(api.handle, api.DeviceGetClockEventReasons, api.clock_event_reasons_symbol);
  }
  resolve(api.handle, api.DeviceGetEccMode, "nvmlDeviceGetEccMode");
  resolve(api.handle, api.DeviceGetTotalEccErrors, "nvmlDeviceGetTotalEccErrors");
  resolve(api.handle, api.DeviceGetCpuAffinity, "nvmlDeviceGetCpuAffinity");
  resolve(api.handle, api.DeviceGetNumaNodeId, "nvmlDeviceGetNumaNodeId");
  resolve(api.handle, api.DeviceGetUtilizationRates, "nvmlDeviceGetUtilizationRates");
  resolve(api.handle, api.DeviceGetComputeRunningProcesses, "nvmlDeviceGetComputeRunningProcesses_v3");
  if (api.DeviceGetComputeRunningProcesses == nullptr) {
    resolve(api.handle, api.DeviceGetComputeRunningProcesses, "nvmlDeviceGetComputeRunningProcesses_v2");
  }
  resolve(api.handle, api.DeviceGetFieldValues, "nvmlDeviceGetFieldValues");
  resolve(api.handle, api.DeviceGetNvLinkCapability, "nvmlDeviceGetNvLinkCapability");
  resolve(api.handle, api.DeviceGetNvLinkState, "nvmlDeviceGetNvLinkState");
  resolve(api.handle, api.DeviceGetNvLinkVersion, "nvmlDeviceGetNvLinkVersion");
  resolve(api.handle, api.DeviceGetNvLinkRemotePciInfo, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
  resolve(api.handle, api.DeviceGetNvLinkRemoteDeviceType, "nvmlDeviceGetNvLinkRemoteDeviceType");
  resolve(api.handle, api.DeviceGetNvLinkErrorCounter, "nvmlDeviceGetNvLinkErrorCounter");
  resolve(api.handle, api.DeviceGetTopologyCommonAncestor, "nvmlDeviceGetTopologyCommonAncestor");
  resolve(api.handle, api.DeviceGetP2PStatus, "nvmlDeviceGetP2PStatus");
  return true;
}

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

Fact<std::vector<ProcessRecord>> read_processes(const Api& api, nvml::Device device) {
  using Result = Fact<std::vector<ProcessRecord>>;
  if (api.DeviceGetComputeRunningProcesses == nullptr) {
    return Result::unknown(missing_symbol("nvmlDeviceGetComputeRunningProcesses_v3"));
  }
  std::vector<nvml::ProcessInfo> infos(64);
  unsigned count = static_cast<unsigned>(infos.size());
  nvml::Return rc = api.DeviceGetComputeRunningProcesses(device, &count, infos.data());
  if (rc == nvml::kErrorInsufficientSize) {  // more processes than room: NVML says how many
    infos.resize(count + 16);
    count = static_cast<unsigned>(infos.size());
    rc = api.DeviceGetComputeRunningProcesses(device, &count, infos.data());
  }
  if (rc != nvml::kSuccess) return Result::unknown(api.describe("nvmlDeviceGetComputeRunningProcesses", rc));
  std::vector<ProcessRecord> processes;
  for (unsigned i = 0; i < count && i < infos.size(); ++i) {
    ProcessRecord process;
    process.pid = infos[i].pid;
    if (infos[i].usedGpuMemory == nvml::kValueNotAvailable) {
      process.used_memory_bytes = Fact<unsigned long long>::unknown("NVML reports the memory use as not available");
    } else {
      process.used_memory_bytes = Fact<unsigned long long>::known(infos[i].usedGpuMemory);
    }
    if (api.SystemGetProcessName != nullptr) {
      std::array<char, 256> name{};
      if (api.SystemGetProcessName(process.pid, name.data(), static_cast<unsigned>(name.size())) == nvml::kSuccess) {
        process.name = name.data();
      }
    }
    processes.push_back(std::move(process));
  }
  return Result::known(std::move(processes));
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
void read_nvlinks(const Api& api, nvml::Device device, NvmlGpuRecord& gpu) {
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

void read_c2c(const Api& api, nvml::Device device, NvmlGpuRecord& gpu) {
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

NvmlGpuRecord read_gpu(const Api& api, unsigned index, nvml::Device device) {
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
  gpu.processes = read_processes(api, device);
  read_nvlinks(api, device, gpu);
  if (gpu.sm.value_or(0) >= 90) {
    read_c2c(api, device, gpu);
  } else {
    gpu.c2c_active_links = Fact<unsigned>::unknown("C2C exists only on sm >= 90 (Grace Hopper and later)");
  }
  return gpu;
}

NvmlPairRecord read_pair(const Api& api, unsigned a, nvml::Device da, unsigned b, nvml::Device db) {
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
  Api api;
  api.path = path_;
  snapshot.library = path_;
  if (!open_api(api, snapshot)) return snapshot;
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
