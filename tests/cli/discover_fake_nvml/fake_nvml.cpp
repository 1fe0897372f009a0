// A recorded NVML: the h200x2 machine (2 x H200, 18 NVLinks each into an NVSwitch the VM cannot see), as a
// shared library that `LINKSCOPE_NVML_LIBRARY` can point at. CLI tests use it to drive linkscope's real dlopen
// loader and everything after it on machines without a GPU. Values: tests/fixtures/h200x2 captures.
// FAKE_NVML_NO_FIELD_VALUES=1 makes nvmlDeviceGetFieldValues fail as on drivers before field support,
// which exercises the loader's per-link fallback. For the MPI tests, where each rank plays another host:
// FAKE_NVML_DRIVER_VERSION replaces the driver version, FAKE_NVML_GPU_COUNT=1 shows only the first GPU, and
// FAKE_NVML_CRASH=1 makes nvmlInit_v2 abort the process (a rank that dies).
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "discover/nvml_api.hpp"

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
constexpr nvml::Return kErrorFunctionNotFound = 13;

int index_of(nvml::Device device) { return static_cast<int>(reinterpret_cast<std::uintptr_t>(device)) - 1; }
bool valid(nvml::Device device) { return index_of(device) >= 0 && index_of(device) < static_cast<int>(gpu_count()); }

void copy(char* out, unsigned length, const char* text) {
  std::strncpy(out, text, length);
  if (length > 0) out[length - 1] = '\0';
}

}  // namespace

extern "C" {

nvml::Return nvmlInit_v2() {
  if (const char* crash = std::getenv("FAKE_NVML_CRASH"); crash != nullptr && std::strcmp(crash, "1") == 0) std::abort();
  return nvml::kSuccess;
}
nvml::Return nvmlShutdown() { return nvml::kSuccess; }
const char* nvmlErrorString(nvml::Return rc) {
  switch (rc) {
    case nvml::kSuccess: return "Success";
    case kErrorInvalidArgument: return "Invalid Argument";
    case nvml::kErrorNotSupported: return "Not Supported";
    case kErrorFunctionNotFound: return "Function Not Found";
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
  if (pid != 4242) return nvml::kErrorNotSupported;
  copy(name, length, "python3");
  return nvml::kSuccess;
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
nvml::Return nvmlDeviceGetMemoryInfo(nvml::Device, nvml::Memory* memory) {
  memory->total = 143771ULL << 20;
  memory->used = 0;
  memory->free = memory->total;
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
nvml::Return nvmlDeviceGetClockInfo(nvml::Device, int type, unsigned* mhz) {
  *mhz = type == nvml::kClockSm ? 345 : 3201;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetMaxClockInfo(nvml::Device, int type, unsigned* mhz) {
  *mhz = type == nvml::kClockSm ? 1980 : 3201;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetCurrentClocksEventReasons(nvml::Device, unsigned long long* reasons) {
  *reasons = 0x1;  // GPU idle
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetEccMode(nvml::Device, int* current, int* pending) {
  *current = *pending = nvml::kFeatureEnabled;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetTotalEccErrors(nvml::Device, int, int, unsigned long long* count) {
  *count = 0;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetCpuAffinity(nvml::Device, unsigned words, unsigned long* mask) {
  for (unsigned i = 0; i < words; ++i) mask[i] = 0;
  mask[0] = 0xffffffffUL;  // CPUs 0-31
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetNumaNodeId(nvml::Device, unsigned*) { return nvml::kErrorNotSupported; }
nvml::Return nvmlDeviceGetUtilizationRates(nvml::Device, nvml::Utilization* utilization) {
  utilization->gpu = 0;
  utilization->memory = 0;
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetComputeRunningProcesses_v3(nvml::Device device, unsigned* count, nvml::ProcessInfo* infos) {
  if (index_of(device) != 0) {
    *count = 0;
    return nvml::kSuccess;
  }
  if (*count < 1) {
    *count = 1;
    return nvml::kErrorInsufficientSize;
  }
  *count = 1;
  infos[0] = {4242, 1ULL << 30, 0xffffffffU, 0xffffffffU};
  return nvml::kSuccess;
}
nvml::Return nvmlDeviceGetFieldValues(nvml::Device, int count, nvml::FieldValue* values) {
  const char* old = std::getenv("FAKE_NVML_NO_FIELD_VALUES");
  if (old != nullptr && std::strcmp(old, "1") == 0) return kErrorFunctionNotFound;
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
      case nvml::kFieldNvlinkCrcErrors:
        value.valueType = nvml::kValueUnsignedLongLong;
        value.value.ullVal = 0;
        break;
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
nvml::Return nvmlDeviceGetNvLinkErrorCounter(nvml::Device, unsigned link, int, unsigned long long* value) {
  if (link >= 18) return kErrorInvalidArgument;
  *value = 0;
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
