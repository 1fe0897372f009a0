#pragma once
#include <nccl.h>

#include <string>

#include "platform/nccl_version.hpp"

// The device API's communicator (nccl_device/core.h, NCCL >= 2.28): declared, not included, so that this header
// builds with older NCCL headers too.
struct ncclDevComm;
struct ncclDevCommRequirements;

namespace linkscope::platform {

// NCCL's API resolved with dlopen/dlsym from the system's libnccl.so.2 (or LINKSCOPE_NCCL_LIBRARY).
// Linking NCCL would make the binary refuse to start where NCCL is missing; this way the tool starts,
// offline features work, and GPU features fail with one clear line. Functions newer than the oldest
// NCCL we support (2.18) may be null: callers check before use.
struct NcclLibrary {
  std::string path;         // what was opened
  int version_code = 0;     // ncclGetVersion(), e.g. 22803
  decltype(&ncclGetVersion) GetVersion = nullptr;
  decltype(&ncclGetErrorString) GetErrorString = nullptr;
  decltype(&ncclGetLastError) GetLastError = nullptr;
  decltype(&ncclGetUniqueId) GetUniqueId = nullptr;
  decltype(&ncclCommInitRank) CommInitRank = nullptr;
  decltype(&ncclCommInitRankConfig) CommInitRankConfig = nullptr;
  decltype(&ncclCommInitAll) CommInitAll = nullptr;
  decltype(&ncclCommDestroy) CommDestroy = nullptr;
  decltype(&ncclCommAbort) CommAbort = nullptr;
  decltype(&ncclCommGetAsyncError) CommGetAsyncError = nullptr;
  decltype(&ncclCommCount) CommCount = nullptr;
  decltype(&ncclCommCuDevice) CommCuDevice = nullptr;
  decltype(&ncclCommUserRank) CommUserRank = nullptr;
  decltype(&ncclGroupStart) GroupStart = nullptr;
  decltype(&ncclGroupEnd) GroupEnd = nullptr;
  decltype(&ncclAllReduce) AllReduce = nullptr;
  decltype(&ncclAllGather) AllGather = nullptr;
  decltype(&ncclReduceScatter) ReduceScatter = nullptr;
  decltype(&ncclBroadcast) Broadcast = nullptr;
  decltype(&ncclReduce) Reduce = nullptr;
  decltype(&ncclSend) Send = nullptr;
  decltype(&ncclRecv) Recv = nullptr;
  decltype(&ncclAlltoAll) AlltoAll = nullptr;        // NCCL >= 2.28
  decltype(&ncclGather) Gather = nullptr;            // NCCL >= 2.28
  decltype(&ncclScatter) Scatter = nullptr;          // NCCL >= 2.28
  decltype(&ncclRedOpCreatePreMulSum) RedOpCreatePreMulSum = nullptr;
  decltype(&ncclRedOpDestroy) RedOpDestroy = nullptr;
  decltype(&ncclMemAlloc) MemAlloc = nullptr;        // NCCL >= 2.19
  decltype(&ncclMemFree) MemFree = nullptr;
  decltype(&ncclCommRegister) CommRegister = nullptr;              // NCCL >= 2.19 (-R 1)
  decltype(&ncclCommDeregister) CommDeregister = nullptr;
  decltype(&ncclCommWindowRegister) CommWindowRegister = nullptr;  // NCCL >= 2.27 (-R 2)
  decltype(&ncclCommWindowDeregister) CommWindowDeregister = nullptr;
  // NCCL >= 2.28 (-D): the device communicator of a host communicator.
  ncclResult_t (*DevCommCreate)(ncclComm_t, const ncclDevCommRequirements*, ncclDevComm*) = nullptr;
  ncclResult_t (*DevCommDestroy)(ncclComm_t, const ncclDevComm*) = nullptr;

  // "2.28.3" from version_code.
  std::string version_string() const;
};

// Opens NCCL once per process. Throws DeviceError ("NCCL library not found: ...") when it cannot.
const NcclLibrary& nccl_library();

}  // namespace linkscope::platform
