#include "discover/nvml_library.hpp"

#include <dlfcn.h>

#include <array>

namespace linkscope::discover {

namespace {

template <typename Fn>
void resolve(void* handle, Fn& slot, const char* name) {
  slot = reinterpret_cast<Fn>(dlsym(handle, name));
}

}  // namespace

std::string NvmlApi::describe(const char* call, nvml::Return rc) const {
  const char* text = ErrorString != nullptr ? ErrorString(rc) : nullptr;
  return text != nullptr ? fmt::format("{}: {}", call, text) : fmt::format("{}: NVML error {}", call, rc);
}

std::string missing_symbol(const char* name) { return fmt::format("{} is not in this NVML (driver too old)", name); }

bool open_nvml_api(NvmlApi& api, std::string& reason) {
  api.handle = dlopen(api.path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (api.handle == nullptr) {
    const char* why = dlerror();
    reason = fmt::format("dlopen({}) failed: {}", api.path, why != nullptr ? why : "unknown reason");
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
      reason = fmt::format("{} lacks {}: not NVML, or a driver too old for linkscope", api.path, name);
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
  resolve(api.handle, api.DeviceGetMemoryBusWidth, "nvmlDeviceGetMemoryBusWidth");
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
  resolve(api.handle, api.DeviceGetGpuFabricInfo, "nvmlDeviceGetGpuFabricInfo");
  resolve(api.handle, api.DeviceGetGpuFabricInfoV, "nvmlDeviceGetGpuFabricInfoV");
  resolve(api.handle, api.DeviceGetMemoryInfoV2, "nvmlDeviceGetMemoryInfo_v2");
  resolve(api.handle, api.DeviceGetPowerUsage, "nvmlDeviceGetPowerUsage");
  resolve(api.handle, api.DeviceGetTemperature, "nvmlDeviceGetTemperature");
  resolve(api.handle, api.DeviceGetPcieReplayCounter, "nvmlDeviceGetPcieReplayCounter");
  resolve(api.handle, api.DeviceGetRetiredPages, "nvmlDeviceGetRetiredPages");
  resolve(api.handle, api.DeviceGetRetiredPagesPendingStatus, "nvmlDeviceGetRetiredPagesPendingStatus");
  resolve(api.handle, api.DeviceGetRemappedRows, "nvmlDeviceGetRemappedRows");
  resolve(api.handle, api.EventSetCreate, "nvmlEventSetCreate");
  resolve(api.handle, api.DeviceRegisterEvents, "nvmlDeviceRegisterEvents");
  resolve(api.handle, api.DeviceGetSupportedEventTypes, "nvmlDeviceGetSupportedEventTypes");
  resolve(api.handle, api.EventSetWait, "nvmlEventSetWait_v2");
  resolve(api.handle, api.EventSetFree, "nvmlEventSetFree");
  return true;
}

std::vector<nvml::FieldValue> field_per_link(const NvmlApi& api, nvml::Device device, unsigned field, unsigned count,
                                             std::string& call_error) {
  std::vector<nvml::FieldValue> values(count);
  for (unsigned link = 0; link < count; ++link) {
    values[link] = {};
    values[link].fieldId = field;
    values[link].scopeId = link;
  }
  read_fields(api, device, values, call_error);
  return values;
}

bool read_fields(const NvmlApi& api, nvml::Device device, std::vector<nvml::FieldValue>& values, std::string& call_error) {
  if (api.DeviceGetFieldValues == nullptr) {
    call_error = missing_symbol("nvmlDeviceGetFieldValues");
    return false;
  }
  if (values.empty()) return true;
  const nvml::Return rc = api.DeviceGetFieldValues(device, static_cast<int>(values.size()), values.data());
  if (rc != nvml::kSuccess) {
    call_error = api.describe("nvmlDeviceGetFieldValues", rc);
    return false;
  }
  return true;
}

std::optional<unsigned long long> field_integer(const nvml::FieldValue& value) {
  if (value.nvmlReturn != nvml::kSuccess) return std::nullopt;
  switch (value.valueType) {
    case nvml::kValueUnsignedLong: return value.value.ulVal;
    case nvml::kValueUnsignedLongLong: return value.value.ullVal;
    default: return value.value.uiVal;  // unsigned int is what the NVLink fields return
  }
}

Fact<std::vector<ProcessRecord>> list_processes(const NvmlApi& api, nvml::Device device) {
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
    processes.push_back(std::move(process));
  }
  return Result::known(std::move(processes));
}

std::string process_name(const NvmlApi& api, unsigned pid) {
  if (api.SystemGetProcessName == nullptr) return "";
  std::array<char, 256> name{};
  if (api.SystemGetProcessName(pid, name.data(), static_cast<unsigned>(name.size())) != nvml::kSuccess) return "";
  return name.data();
}

}  // namespace linkscope::discover
