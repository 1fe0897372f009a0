// A recorded NVML: the h200x2 machine (2 x H200, 18 NVLinks each into an NVSwitch the VM cannot see), as a
// shared library that `LINKSCOPE_NVML_LIBRARY` can point at. CLI tests use it to drive linkscope's real dlopen
// loader and everything after it on machines without a GPU. Values: tests/fixtures/h200x2 captures.
// FAKE_NVML_NO_FIELD_VALUES=1 makes nvmlDeviceGetFieldValues fail as on drivers before field support,
// which exercises the loader's per-link fallback. For the MPI tests, where each rank plays another host:
// FAKE_NVML_DRIVER_VERSION replaces the driver version, FAKE_NVML_GPU_COUNT=1 shows only the first GPU, and
// FAKE_NVML_CRASH=1 makes nvmlInit_v2 abort the process (a rank that dies). What changes over a run (utilization,
// clocks, power, processes, error counters, Xid events) comes from fake_nvml_script (FAKE_NVML_SCRIPT).
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "discover/nvml_api.hpp"
#include "fake_nvml_script.hpp"

namespace nvml = linkscope::discover::nvml;

namespace {

struct FakeGpu {
  const char* uuid;
  const char* bus_id;
  unsigned device;
};

const FakeGpu kGpus[] = {{"GPU-db0b843c-9616-d6f1-74d8-de3fe79dca28", "00000000:00:06.0", 6},
                         {"GPU-005980e6-efd3-0254-f791-a39d369f7e24", "00000000:00:07.0", 7}};
constexpr unsigned kRecordedGpus = 2;

unsigned gpu_count() {
  const char* text = std::getenv("FAKE_NVML_GPU_COUNT");
  return text != nullptr && std::strcmp(text, "1") == 0 ? 1 : kRecordedGpus;
}
constexpr nvml::Return kErrorInvalidArgument = 2;

int index_of(nvml::Device device) { return static_cast<int>(reinterpret_cast<std::uintptr_t>(device)) - 1; }
bool valid(nvml::Device device) { return index_of(device) >= 0 && index_of(device) < static_cast<int>(gpu_count()); }

void copy(char* out, unsigned length, const char* text) {
  std::strncpy(out, text, length);
  if (length > 0) out[length - 1] = '\0';
}

fake_nvml::GpuState state_of(nvml::Device device) { return fake_nvml::state(static_cast<unsigned>(index_of(device))); }

// The event set of this fake: one set, registered for Xid events on every GPU.
nvml::EventSet const kEventSet = reinterpret_cast<nvml::EventSet>(static_cast<std::uintptr_t>(0xe7));

}  // namespace

extern "C" {

nvml::Return nvmlInit_v2() {
  if (const char* crash = std::getenv("FAKE_NVML_CRASH"); crash != nullptr && std::strcmp(crash, "1") == 0) std::abort();
  fake_nvml::restart_clock();
  return nvml::kSuccess;
}
nvml::Return nvmlShutdown() { return nvml::kSuccess; }
const char* nvmlErrorString(nvml::Return rc) {
  switch (rc) {
    case nvml::kSuccess: return "Success";
    case kErrorInvalidArgument: return "Invalid Argument";
    case nvml::kErrorNotSupported: return "Not Supported";
    case nvml::kErrorFunctionNotFound: return "Function Not Found";
    default: return "Unknown Error";
  }
}
nvml::Return nvmlSystemGetDriverVersion(char* version, unsigned length) {
  const char* version_override = std::getenv("FAKE_NVML_DRIVER_VERSION");
  copy(version, length, version_override != nullptr ? version_override : "580.159.04");
  return nvml::kSuccess;
}
nvml::Return nvmlSystemGetCudaDriverVersion(int* version) {
  *version = 13000;
  return nvml::kSuccess;
}
nvml::Return nvmlSystemGetProcessName(unsigned pid, char* name, unsigned length) {
  for (unsigned gpu = 0; gpu < gpu_count(); ++gpu) {
    for (const auto& process : fake_nvml::state(gpu).processes) {
      if (process.pid == pid && !process.name.empty()) {
        copy(name, length, process.name.c_str());
        return nvml::kSuccess;
      }
    }
  }
  return nvml::kErrorNotSupported;  // as NVML does for a pid of another PID namespace
}
nvml::Return nvmlDeviceGetCount_v2(unsigned* count) {
  *count = gpu_count();
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetHandleByIndex_v2(unsigned index, nvml::Device* device) {
  if (index >= gpu_count()) return kErrorInvalidArgument;
  *device = reinterpret_cast<nvml::Device>(static_cast<std::uintptr_t>(index + 1));
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetPciInfo_v3(nvml::Device device, nvml::PciInfo* pci) {
  if (!valid(device)) return kErrorInvalidArgument;
  std::memset(pci, 0, sizeof *pci);
  copy(pci->busId, sizeof pci->busId, kGpus[index_of(device)].bus_id);
  pci->device = kGpus[index_of(device)].device;
  pci->pciDeviceId = 0x233510de;
  pci->pciSubSystemId = 0x18bf10de;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetUUID(nvml::Device device, char* uuid, unsigned length) {
  if (!valid(device)) return kErrorInvalidArgument;
  copy(uuid, length, kGpus[index_of(device)].uuid);
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetName(nvml::Device, char* name, unsigned length) {
  copy(name, length, "NVIDIA H200");
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetCudaComputeCapability(nvml::Device, int* major, int* minor) {
  *major = 9;
  *minor = 0;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetMemoryInfo(nvml::Device device, nvml::Memory* memory) {
  memory->total = 143771ULL << 20;
  memory->used = state_of(device).memory_used_bytes;
  memory->free = memory->total - memory->used;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetMemoryInfo_v2(nvml::Device device, nvml::MemoryV2* memory) {
  if (fake_nvml::unsupported("memory_v2")) return nvml::kErrorNotSupported;
  if (memory->version != nvml::kMemoryV2Version) return kErrorInvalidArgument;
  memory->total = 143771ULL << 20;
  memory->reserved = 512ULL << 20;
  memory->used = state_of(device).memory_used_bytes;
  memory->free = memory->total - memory->reserved - memory->used;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetPersistenceMode(nvml::Device, int* mode) {
  *mode = nvml::kFeatureEnabled;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetMigMode(nvml::Device, unsigned* current, unsigned* pending) {
  *current = 0;
  *pending = 0;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetComputeMode(nvml::Device, int* mode) {
  *mode = 0;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetCurrPcieLinkGeneration(nvml::Device, unsigned* value) { *value = 5; return nvml::kSuccess; }
nvml::Return nvmlDeviceGetMaxPcieLinkGeneration(nvml::Device, unsigned* value) { *value = 5; return nvml::kSuccess; }
nvml::Return nvmlDeviceGetCurrPcieLinkWidth(nvml::Device, unsigned* value) { *value = 16; return nvml::kSuccess; }
nvml::Return nvmlDeviceGetMaxPcieLinkWidth(nvml::Device, unsigned* value) { *value = 16; return nvml::kSuccess; }
nvml::Return nvmlDeviceGetClockInfo(nvml::Device device, int type, unsigned* mhz) {
  const auto s = state_of(device);
  *mhz = type == nvml::kClockSm ? s.sm_clock_mhz : s.mem_clock_mhz;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetMaxClockInfo(nvml::Device, int type, unsigned* mhz) {
  *mhz = type == nvml::kClockSm ? 1980 : 3201;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetMemoryBusWidth(nvml::Device, unsigned* bits) {
  *bits = 6144;  // H200: six HBM3e stacks of 1024 bits
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetCurrentClocksEventReasons(nvml::Device device, unsigned long long* reasons) {
  *reasons = state_of(device).clocks_event_reasons;  // 0x1: GPU idle
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetEccMode(nvml::Device, int* current, int* pending) {
  *current = *pending = nvml::kFeatureEnabled;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetTotalEccErrors(nvml::Device device, int type, int counter, unsigned long long* count) {
  if (fake_nvml::unsupported("ecc")) return nvml::kErrorNotSupported;
  const auto s = state_of(device);
  // The script holds the volatile counts; the aggregate ones are those of the recorded machine (none).
  *count = counter != nvml::kVolatileEcc ? 0
           : type == nvml::kMemoryErrorCorrected ? s.ecc_volatile_corrected
                                                 : s.ecc_volatile_uncorrected;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetCpuAffinity(nvml::Device, unsigned words, unsigned long* mask) {
  for (unsigned i = 0; i < words; ++i) mask[i] = 0;
  mask[0] = 0xffffffffUL;  // CPUs 0-31
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetNumaNodeId(nvml::Device, unsigned*) { return nvml::kErrorNotSupported; }
nvml::Return nvmlDeviceGetGpuFabricInfoV(nvml::Device device, nvml::GpuFabricInfoV2* info) {
  if (fake_nvml::unsupported("fabric")) return nvml::kErrorNotSupported;
  if (info->version != nvml::kGpuFabricInfoV2Version) return 25;  // NVML_ERROR_ARGUMENT_VERSION_MISMATCH
  const auto s = state_of(device);
  info->state = static_cast<unsigned char>(s.fabric_state);
  info->status = s.fabric_status;
  info->cliqueId = 0x7fff;
  for (unsigned i = 0; i < nvml::kFabricUuidLength; ++i) info->clusterUuid[i] = 0;
  info->healthMask = 0;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetUtilizationRates(nvml::Device device, nvml::Utilization* utilization) {
  const auto s = state_of(device);
  utilization->gpu = s.utilization_gpu;
  utilization->memory = s.utilization_memory;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetComputeRunningProcesses_v3(nvml::Device device, unsigned* count, nvml::ProcessInfo* infos) {
  if (fake_nvml::unsupported("processes")) return nvml::kErrorNotSupported;
  const auto processes = state_of(device).processes;
  if (*count < processes.size()) {
    *count = static_cast<unsigned>(processes.size());
    return nvml::kErrorInsufficientSize;
  }
  *count = static_cast<unsigned>(processes.size());
  for (std::size_t i = 0; i < processes.size(); ++i) {
    infos[i] = {processes[i].pid, processes[i].used_memory_bytes, 0xffffffffU, 0xffffffffU};
  }
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetPowerUsage(nvml::Device device, unsigned* milliwatts) {
  if (fake_nvml::unsupported("power")) return nvml::kErrorNotSupported;
  *milliwatts = state_of(device).power_mw;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetTemperature(nvml::Device device, int sensor, unsigned* celsius) {
  if (fake_nvml::unsupported("temperature")) return nvml::kErrorNotSupported;
  if (sensor != nvml::kTemperatureGpu) return kErrorInvalidArgument;
  *celsius = state_of(device).temperature_c;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetPcieReplayCounter(nvml::Device device, unsigned* value) {
  if (fake_nvml::unsupported("pcie_replay")) return nvml::kErrorNotSupported;
  *value = state_of(device).pcie_replay;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetRetiredPages(nvml::Device device, int cause, unsigned* count, unsigned long long* addresses) {
  if (fake_nvml::unsupported("retired_pages")) return nvml::kErrorNotSupported;
  const auto s = state_of(device);
  const unsigned pages =
      cause == nvml::kRetiredForSingleBitErrors ? s.retired_pages_single_bit : s.retired_pages_double_bit;
  const bool room = *count >= pages;
  for (unsigned i = 0; room && addresses != nullptr && i < pages; ++i) addresses[i] = 0x1000ULL * (i + 1);
  *count = pages;
  return room ? nvml::kSuccess : nvml::kErrorInsufficientSize;
}
nvml::Return nvmlDeviceGetRetiredPagesPendingStatus(nvml::Device device, int* pending) {
  if (fake_nvml::unsupported("retired_pages")) return nvml::kErrorNotSupported;
  *pending = state_of(device).retired_pages_pending ? nvml::kFeatureEnabled : 0;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetRemappedRows(nvml::Device device, unsigned* correctable, unsigned* uncorrectable,
                                       unsigned* pending, unsigned* failure) {
  if (fake_nvml::unsupported("remapped_rows")) return nvml::kErrorNotSupported;
  const auto s = state_of(device);
  *correctable = s.remapped_rows_correctable;
  *uncorrectable = s.remapped_rows_uncorrectable;
  *pending = s.remapped_rows_pending ? 1 : 0;
  *failure = s.remapped_rows_failure ? 1 : 0;
  return nvml::kSuccess;
}
nvml::Return nvmlEventSetCreate(nvml::EventSet* set) {
  *set = kEventSet;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetSupportedEventTypes(nvml::Device, unsigned long long* types) {
  *types = fake_nvml::unsupported("events") ? 0 : nvml::kEventTypeXidCriticalError;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceRegisterEvents(nvml::Device device, unsigned long long types, nvml::EventSet set) {
  if (set != kEventSet || !valid(device)) return kErrorInvalidArgument;
  if (fake_nvml::unsupported("events") || types != nvml::kEventTypeXidCriticalError) return nvml::kErrorNotSupported;
  return nvml::kSuccess;
}
nvml::Return nvmlEventSetWait_v2(nvml::EventSet set, nvml::EventData* data, unsigned timeout_ms) {
  if (set != kEventSet) return kErrorInvalidArgument;
  double wait_s = 0;
  auto xid = fake_nvml::take_xid(wait_s);
  if (!xid && wait_s * 1000 < timeout_ms) {  // one is due within the timeout: wait for it, as NVML does
    std::this_thread::sleep_for(std::chrono::duration<double>(wait_s));
    xid = fake_nvml::take_xid(wait_s);
  }
  if (!xid) {
    if (wait_s * 1000 >= timeout_ms) std::this_thread::sleep_for(std::chrono::milliseconds(timeout_ms));
    return nvml::kErrorTimeout;
  }
  *data = {};
  data->device = reinterpret_cast<nvml::Device>(static_cast<std::uintptr_t>(xid->gpu + 1));
  data->eventType = nvml::kEventTypeXidCriticalError;
  data->eventData = static_cast<unsigned long long>(xid->xid);
  data->gpuInstanceId = data->computeInstanceId = 0xffffffffU;
  return nvml::kSuccess;
}
nvml::Return nvmlEventSetFree(nvml::EventSet set) { return set == kEventSet ? nvml::kSuccess : kErrorInvalidArgument; }
nvml::Return nvmlDeviceGetFieldValues(nvml::Device device, int count, nvml::FieldValue* values) {
  const char* old = std::getenv("FAKE_NVML_NO_FIELD_VALUES");
  if (old != nullptr && std::strcmp(old, "1") == 0) return nvml::kErrorFunctionNotFound;
  const auto s = state_of(device);
  for (int i = 0; i < count; ++i) {
    nvml::FieldValue& value = values[i];
    value.nvmlReturn = nvml::kSuccess;
    value.valueType = nvml::kValueUnsignedInt;
    switch (value.fieldId) {
      case nvml::kFieldNvlinkLinkCount: value.value.uiVal = 18; break;
      case nvml::kFieldNvlinkState: value.value.uiVal = nvml::kFeatureEnabled; break;
      case nvml::kFieldNvlinkVersion: value.value.uiVal = 4; break;
      case nvml::kFieldNvlinkSpeed:
      case nvml::kFieldNvlinkSpeedCommon: value.value.uiVal = 26562; break;
      case nvml::kFieldNvlinkReplayErrors:
      case nvml::kFieldNvlinkRecoveryErrors:
      case nvml::kFieldNvlinkCrcErrors: {
        if (value.scopeId >= 18 || fake_nvml::unsupported("nvlink_errors")) {
          value.nvmlReturn = nvml::kErrorNotSupported;
          break;
        }
        const auto& counters = value.fieldId == nvml::kFieldNvlinkReplayErrors     ? s.nvlink_replay
                               : value.fieldId == nvml::kFieldNvlinkRecoveryErrors ? s.nvlink_recovery
                                                                                   : s.nvlink_crc_flit;
        value.valueType = nvml::kValueUnsignedLongLong;
        value.value.ullVal = counters[value.scopeId];
        break;
      }
      case nvml::kFieldC2cLinkCount: value.value.uiVal = 0; break;
      default: value.nvmlReturn = nvml::kErrorNotSupported;
    }
  }
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetNvLinkCapability(nvml::Device, unsigned link, int capability, unsigned* result) {
  if (link >= 18) return kErrorInvalidArgument;
  *result = capability == nvml::kNvlinkCapP2pSupported ? 1 : 0;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetNvLinkState(nvml::Device, unsigned link, int* active) {
  if (link >= 18) return kErrorInvalidArgument;
  *active = nvml::kFeatureEnabled;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetNvLinkVersion(nvml::Device, unsigned link, unsigned* version) {
  if (link >= 18) return kErrorInvalidArgument;
  *version = 4;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetNvLinkRemotePciInfo_v2(nvml::Device, unsigned link, nvml::PciInfo* pci) {
  if (link >= 18) return kErrorInvalidArgument;
  std::memset(pci, 0, sizeof *pci);
  copy(pci->busId, sizeof pci->busId, "FFFFFFF:FF:FF.0");  // the NVSwitch, invisible in the VM
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetNvLinkRemoteDeviceType(nvml::Device, unsigned link, int* type) {
  if (link >= 18) return kErrorInvalidArgument;
  *type = nvml::kNvlinkDeviceSwitch;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetNvLinkErrorCounter(nvml::Device device, unsigned link, int counter, unsigned long long* value) {
  if (link >= 18) return kErrorInvalidArgument;
  if (fake_nvml::unsupported("nvlink_errors")) return nvml::kErrorNotSupported;
  const auto s = state_of(device);
  *value = counter == nvml::kNvlinkErrorReplay     ? s.nvlink_replay[link]
           : counter == nvml::kNvlinkErrorRecovery ? s.nvlink_recovery[link]
                                                   : s.nvlink_crc_flit[link];
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetTopologyCommonAncestor(nvml::Device, nvml::Device, int* level) {
  *level = 30;  // NVML_TOPOLOGY_HOSTBRIDGE: both GPUs hang from the same root complex
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetP2PStatus(nvml::Device, nvml::Device, int, int* status) {
  *status = 0;  // NVML_P2P_STATUS_OK for read, write, NVLink and atomics
  return nvml::kSuccess;
}

}  // extern "C"
