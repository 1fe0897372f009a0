#pragma once
// The few NVML types, constants and function signatures linkscope calls, declared here because nvml.h is
// not available where linkscope is built; NVML is opened with dlopen (nvml_loader.cpp). Values are those
// of NVIDIA's nvml.h (API version 12). C enums are int-sized, so enum-typed parameters are `int` here.

namespace linkscope::discover::nvml {

using Return = int;  // nvmlReturn_t
using Device = struct DeviceOpaque*;  // nvmlDevice_t
using EventSet = struct EventSetOpaque*;  // nvmlEventSet_t

constexpr Return kSuccess = 0;                // NVML_SUCCESS
constexpr Return kErrorNotSupported = 3;      // NVML_ERROR_NOT_SUPPORTED
constexpr Return kErrorNoPermission = 4;      // NVML_ERROR_NO_PERMISSION
constexpr Return kErrorInsufficientSize = 7;  // NVML_ERROR_INSUFFICIENT_SIZE
constexpr Return kErrorTimeout = 10;          // NVML_ERROR_TIMEOUT (nvmlEventSetWait: no event in time)
constexpr Return kErrorFunctionNotFound = 13; // NVML_ERROR_FUNCTION_NOT_FOUND

constexpr int kFeatureEnabled = 1;  // NVML_FEATURE_ENABLED (nvmlEnableState_t)
constexpr unsigned kMaxNvlinks = 18;  // NVML_NVLINK_MAX_LINKS

constexpr unsigned kUuidBufferSize = 96;           // NVML_DEVICE_UUID_V2_BUFFER_SIZE
constexpr unsigned kNameBufferSize = 96;           // NVML_DEVICE_NAME_V2_BUFFER_SIZE
constexpr unsigned kDriverVersionBufferSize = 80;  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE
constexpr unsigned long long kValueNotAvailable = ~0ULL;  // NVML_VALUE_NOT_AVAILABLE as unsigned long long

struct PciInfo {              // nvmlPciInfo_t
  char busIdLegacy[16];
  unsigned int domain;
  unsigned int bus;
  unsigned int device;
  unsigned int pciDeviceId;
  unsigned int pciSubSystemId;
  char busId[32];
};

struct Memory {               // nvmlMemory_t (v1)
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

struct MemoryV2 {             // nvmlMemory_v2_t: `used` without the driver's reserve
  unsigned int version;
  unsigned long long total;
  unsigned long long reserved;
  unsigned long long free;
  unsigned long long used;
};
// NVML_STRUCT_VERSION(Memory, 2): the struct's size with the version in the top byte.
constexpr unsigned kMemoryV2Version = static_cast<unsigned>(sizeof(MemoryV2)) | (2u << 24);

struct EventData {            // nvmlEventData_t
  Device device;
  unsigned long long eventType;
  unsigned long long eventData;  // the Xid for kEventTypeXidCriticalError (999: an Xid NVML cannot name)
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};
constexpr unsigned long long kEventTypeXidCriticalError = 0x8;  // nvmlEventTypeXidCriticalError

struct Utilization {          // nvmlUtilization_t
  unsigned int gpu;
  unsigned int memory;
};

struct ProcessInfo {          // nvmlProcessInfo_t (= nvmlProcessInfo_v2_t, used by the _v2 and _v3 calls)
  unsigned int pid;
  unsigned long long usedGpuMemory;
  unsigned int gpuInstanceId;
  unsigned int computeInstanceId;
};

// nvmlGpuFabricInfo_t (drivers >= 525) and nvmlGpuFabricInfo_v2_t (the versioned call, with the health mask).
constexpr unsigned kFabricUuidLength = 16;  // NVML_GPU_FABRIC_UUID_LEN
struct GpuFabricInfo {
  unsigned char clusterUuid[kFabricUuidLength];
  Return status;
  unsigned int cliqueId;
  unsigned char state;  // nvmlGpuFabricState_t
};
struct GpuFabricInfoV2 {
  unsigned int version;
  unsigned char clusterUuid[kFabricUuidLength];
  Return status;
  unsigned int cliqueId;
  unsigned char state;
  unsigned int healthMask;
};
constexpr unsigned kGpuFabricInfoV2Version = static_cast<unsigned>(sizeof(GpuFabricInfoV2)) | (2u << 24);
static_assert(sizeof(GpuFabricInfoV2) == 36, "nvmlGpuFabricInfo_v2_t is 36 bytes (its version word says so)");
// nvmlGpuFabricState_t
constexpr unsigned kFabricStateNotSupported = 0;
constexpr unsigned kFabricStateNotStarted = 1;
constexpr unsigned kFabricStateInProgress = 2;
constexpr unsigned kFabricStateCompleted = 3;

union Value {                 // nvmlValue_t
  double dVal;
  int siVal;
  unsigned int uiVal;
  unsigned long ulVal;
  unsigned long long ullVal;
  signed long long sllVal;
  unsigned short usVal;
};

struct FieldValue {           // nvmlFieldValue_t
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;
  long long latencyUsec;
  int valueType;              // nvmlValueType_t
  Return nvmlReturn;
  Value value;
};

// nvmlValueType_t
constexpr int kValueUnsignedInt = 1;
constexpr int kValueUnsignedLong = 2;
constexpr int kValueUnsignedLongLong = 3;

// Field ids (NVML_FI_DEV_*); the NVLink ones take the link number in scopeId.
constexpr unsigned kFieldNvlinkSpeedCommon = 90;   // NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON
constexpr unsigned kFieldNvlinkLinkCount = 91;     // NVML_FI_DEV_NVLINK_LINK_COUNT
constexpr unsigned kFieldNvlinkReplayErrors = 161;    // NVML_FI_DEV_NVLINK_ERROR_DL_REPLAY
constexpr unsigned kFieldNvlinkRecoveryErrors = 162;  // NVML_FI_DEV_NVLINK_ERROR_DL_RECOVERY
constexpr unsigned kFieldNvlinkCrcErrors = 163;       // NVML_FI_DEV_NVLINK_ERROR_DL_CRC
constexpr unsigned kFieldNvlinkSpeed = 164;        // NVML_FI_DEV_NVLINK_GET_SPEED (MBps)
constexpr unsigned kFieldNvlinkState = 165;        // NVML_FI_DEV_NVLINK_GET_STATE
constexpr unsigned kFieldNvlinkVersion = 166;      // NVML_FI_DEV_NVLINK_GET_VERSION
constexpr unsigned kFieldC2cLinkCount = 170;       // NVML_FI_DEV_C2C_LINK_COUNT
constexpr unsigned kFieldC2cLinkStatus = 171;      // NVML_FI_DEV_C2C_LINK_GET_STATUS
constexpr unsigned kFieldC2cLinkMaxBw = 172;       // NVML_FI_DEV_C2C_LINK_GET_MAX_BW (MBps)

constexpr int kNvlinkCapP2pSupported = 0;  // NVML_NVLINK_CAP_P2P_SUPPORTED
// nvmlNvLinkErrorCounter_t
constexpr int kNvlinkErrorReplay = 0;
constexpr int kNvlinkErrorRecovery = 1;
constexpr int kNvlinkErrorCrcFlit = 2;
// nvmlIntNvLinkDeviceType_t
constexpr int kNvlinkDeviceGpu = 0x00;
constexpr int kNvlinkDeviceIbmNpu = 0x01;
constexpr int kNvlinkDeviceSwitch = 0x02;

constexpr int kClockSm = 1;   // NVML_CLOCK_SM
constexpr int kClockMem = 2;  // NVML_CLOCK_MEM
constexpr int kMemoryErrorCorrected = 0;    // NVML_MEMORY_ERROR_TYPE_CORRECTED
constexpr int kMemoryErrorUncorrected = 1;  // NVML_MEMORY_ERROR_TYPE_UNCORRECTED
constexpr int kVolatileEcc = 0;   // NVML_VOLATILE_ECC
constexpr int kAggregateEcc = 1;  // NVML_AGGREGATE_ECC
constexpr int kTemperatureGpu = 0;  // NVML_TEMPERATURE_GPU
// nvmlPageRetirementCause_t
constexpr int kRetiredForSingleBitErrors = 0;  // NVML_PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS
constexpr int kRetiredForDoubleBitError = 1;   // NVML_PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR

// nvmlGpuP2PCapsIndex_t
constexpr int kP2pCapsRead = 0;
constexpr int kP2pCapsWrite = 1;
constexpr int kP2pCapsNvlink = 2;
constexpr int kP2pCapsAtomics = 3;

// Function pointer types, named after the NVML entry points.
using InitFn = Return (*)();
using ShutdownFn = Return (*)();
using ErrorStringFn = const char* (*)(Return);
using SystemGetDriverVersionFn = Return (*)(char*, unsigned int);
using SystemGetCudaDriverVersionFn = Return (*)(int*);
using SystemGetProcessNameFn = Return (*)(unsigned int, char*, unsigned int);
using DeviceGetCountFn = Return (*)(unsigned int*);
using DeviceGetHandleByIndexFn = Return (*)(unsigned int, Device*);
using DeviceGetPciInfoFn = Return (*)(Device, PciInfo*);
using DeviceGetStringFn = Return (*)(Device, char*, unsigned int);  // GetUUID, GetName
using DeviceGetIntPairFn = Return (*)(Device, int*, int*);          // GetCudaComputeCapability
using DeviceGetUintFn = Return (*)(Device, unsigned int*);          // PCIe gen/width, NUMA node id, bus width
using DeviceGetUintPairFn = Return (*)(Device, unsigned int*, unsigned int*);  // GetMigMode
using DeviceGetIntFn = Return (*)(Device, int*);                    // GetPersistenceMode, GetComputeMode
using DeviceGetIntEnumPairFn = Return (*)(Device, int*, int*);      // GetEccMode
using DeviceGetMemoryInfoFn = Return (*)(Device, Memory*);
using DeviceGetClockFn = Return (*)(Device, int, unsigned int*);    // GetClockInfo, GetMaxClockInfo
using DeviceGetUllFn = Return (*)(Device, unsigned long long*);     // GetCurrentClocksEventReasons
using DeviceGetTotalEccErrorsFn = Return (*)(Device, int, int, unsigned long long*);
using DeviceGetCpuAffinityFn = Return (*)(Device, unsigned int, unsigned long*);
using DeviceGetUtilizationRatesFn = Return (*)(Device, Utilization*);
using DeviceGetProcessesFn = Return (*)(Device, unsigned int*, ProcessInfo*);
using DeviceGetFieldValuesFn = Return (*)(Device, int, FieldValue*);
using DeviceGetNvLinkCapabilityFn = Return (*)(Device, unsigned int, int, unsigned int*);
using DeviceGetNvLinkStateFn = Return (*)(Device, unsigned int, int*);
using DeviceGetNvLinkVersionFn = Return (*)(Device, unsigned int, unsigned int*);
using DeviceGetNvLinkRemotePciInfoFn = Return (*)(Device, unsigned int, PciInfo*);
using DeviceGetNvLinkRemoteDeviceTypeFn = Return (*)(Device, unsigned int, int*);
using DeviceGetNvLinkErrorCounterFn = Return (*)(Device, unsigned int, int, unsigned long long*);
using DeviceGetTopologyCommonAncestorFn = Return (*)(Device, Device, int*);
using DeviceGetP2PStatusFn = Return (*)(Device, Device, int, int*);
using DeviceGetGpuFabricInfoFn = Return (*)(Device, GpuFabricInfo*);
using DeviceGetGpuFabricInfoVFn = Return (*)(Device, GpuFabricInfoV2*);
// Telemetry (src/discover/nvml_monitor.cpp). GetPowerUsage (mW) and GetPcieReplayCounter are DeviceGetUintFn,
// GetRetiredPagesPendingStatus is DeviceGetIntFn, GetSupportedEventTypes is DeviceGetUllFn.
using DeviceGetMemoryInfoV2Fn = Return (*)(Device, MemoryV2*);
using DeviceGetTemperatureFn = Return (*)(Device, int, unsigned int*);
using DeviceGetRetiredPagesFn = Return (*)(Device, int, unsigned int*, unsigned long long*);
using DeviceGetRemappedRowsFn = Return (*)(Device, unsigned int*, unsigned int*, unsigned int*, unsigned int*);
using EventSetCreateFn = Return (*)(EventSet*);
using DeviceRegisterEventsFn = Return (*)(Device, unsigned long long, EventSet);
using EventSetWaitFn = Return (*)(EventSet, EventData*, unsigned int);
using EventSetFreeFn = Return (*)(EventSet);

}  // namespace linkscope::discover::nvml
