#pragma once
// NVML's entry points, opened with dlopen (nvml.h is not available where linkscope is built: nvml_api.hpp declares
// what is used), and the small helpers that turn a call's outcome into a Fact. Shared by discovery
// (nvml_loader.cpp: one pass over everything) and telemetry (nvml_monitor.cpp: the same library kept open while
// the doctor measures).
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "discover/fact.hpp"
#include "discover/nvml_api.hpp"
#include "discover/nvml_source.hpp"

namespace linkscope::discover {

// NVML entry points, named after the functions without their "nvml" prefix; null where this library lacks one.
struct NvmlApi {
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
  nvml::DeviceGetUintFn DeviceGetMemoryBusWidth = nullptr;
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
  nvml::DeviceGetGpuFabricInfoFn DeviceGetGpuFabricInfo = nullptr;
  nvml::DeviceGetGpuFabricInfoVFn DeviceGetGpuFabricInfoV = nullptr;
  // Telemetry: each may be missing (an older driver), which makes its quantity unavailable, never a failure.
  nvml::DeviceGetMemoryInfoV2Fn DeviceGetMemoryInfoV2 = nullptr;
  nvml::DeviceGetUintFn DeviceGetPowerUsage = nullptr;
  nvml::DeviceGetTemperatureFn DeviceGetTemperature = nullptr;
  nvml::DeviceGetUintFn DeviceGetPcieReplayCounter = nullptr;
  nvml::DeviceGetRetiredPagesFn DeviceGetRetiredPages = nullptr;
  nvml::DeviceGetIntFn DeviceGetRetiredPagesPendingStatus = nullptr;
  nvml::DeviceGetRemappedRowsFn DeviceGetRemappedRows = nullptr;
  nvml::EventSetCreateFn EventSetCreate = nullptr;
  nvml::DeviceRegisterEventsFn DeviceRegisterEvents = nullptr;
  nvml::DeviceGetUllFn DeviceGetSupportedEventTypes = nullptr;
  nvml::EventSetWaitFn EventSetWait = nullptr;
  nvml::EventSetFreeFn EventSetFree = nullptr;

  // "nvmlDeviceGetPowerUsage: Not Supported"
  std::string describe(const char* call, nvml::Return rc) const;
};

// dlopens `api.path` and resolves every entry point. False, with the reason, when the library cannot be opened or
// lacks what every caller needs; entry points only some queries need stay null (their facts become unknown).
bool open_nvml_api(NvmlApi& api, std::string& reason);

// "nvmlDeviceGetRemappedRows is not in this NVML (driver too old)"
std::string missing_symbol(const char* name);

// Calls `fn(args..., &raw)` and turns the outcome into a Fact.
template <typename Raw, typename Fn, typename... Args>
Fact<Raw> ask(const NvmlApi& api, const char* name, Fn fn, Args... args) {
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

// One field per link: `field` with scopeId = link for links 0..count-1. Entries the driver rejects keep
// their own nvmlReturn; a failing call marks all of them (`call_error`).
std::vector<nvml::FieldValue> field_per_link(const NvmlApi& api, nvml::Device device, unsigned field, unsigned count,
                                             std::string& call_error);
// Several fields in one call (values[i].fieldId and scopeId set by the caller); false with `call_error` when the
// call itself fails.
bool read_fields(const NvmlApi& api, nvml::Device device, std::vector<nvml::FieldValue>& values, std::string& call_error);
std::optional<unsigned long long> field_integer(const nvml::FieldValue& value);

template <typename T>
Fact<T> field_fact(const NvmlApi& api, const nvml::FieldValue& value, const std::string& call_error, const char* what) {
  if (!call_error.empty()) return Fact<T>::unknown(call_error);
  if (const auto number = field_integer(value)) return Fact<T>::known(static_cast<T>(*number));
  return Fact<T>::unknown(api.describe(what, value.nvmlReturn));
}

// The compute processes NVML lists on `device`, without names.
Fact<std::vector<ProcessRecord>> list_processes(const NvmlApi& api, nvml::Device device);
// NVML's name of a process ("" when NVML cannot name it: another PID namespace, no permission).
std::string process_name(const NvmlApi& api, unsigned pid);

}  // namespace linkscope::discover
