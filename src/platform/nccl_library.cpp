#include "platform/nccl_library.hpp"

#include <dlfcn.h>

#include <cstdlib>

#include <fmt/format.h>

#include "core/error.hpp"
#include "platform/open_once.hpp"

namespace linkscope::platform {

namespace {

template <typename Fn>
void resolve(void* handle, Fn& slot, const char* name, bool required, const std::string& path) {
  slot = reinterpret_cast<Fn>(dlsym(handle, name));
  if (slot == nullptr && required) {
    throw DeviceError(fmt::format("NCCL library {} lacks {}; it is too old or not NCCL", path, name));
  }
}

NcclLibrary open_nccl() {
  NcclLibrary lib;
  const char* override_path = std::getenv("LINKSCOPE_NCCL_LIBRARY");
  lib.path = override_path != nullptr && *override_path != '\0' ? override_path : "libnccl.so.2";
  void* handle = dlopen(lib.path.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    throw DeviceError(fmt::format("NCCL library not found: dlopen({}) failed: {} (install NCCL or set "
                                  "LINKSCOPE_NCCL_LIBRARY to libnccl.so.2's path)",
                                  lib.path, why != nullptr ? why : "unknown reason"));
  }
  // The handle stays open for the life of the process, as NCCL's own users expect.
  resolve(handle, lib.GetVersion, "ncclGetVersion", true, lib.path);
  resolve(handle, lib.GetErrorString, "ncclGetErrorString", true, lib.path);
  resolve(handle, lib.GetLastError, "ncclGetLastError", false, lib.path);
  resolve(handle, lib.GetUniqueId, "ncclGetUniqueId", true, lib.path);
  resolve(handle, lib.CommInitRank, "ncclCommInitRank", true, lib.path);
  resolve(handle, lib.CommInitRankConfig, "ncclCommInitRankConfig", false, lib.path);
  resolve(handle, lib.CommInitAll, "ncclCommInitAll", true, lib.path);
  resolve(handle, lib.CommDestroy, "ncclCommDestroy", true, lib.path);
  resolve(handle, lib.CommAbort, "ncclCommAbort", true, lib.path);
  resolve(handle, lib.CommGetAsyncError, "ncclCommGetAsyncError", true, lib.path);
  resolve(handle, lib.CommCount, "ncclCommCount", true, lib.path);
  resolve(handle, lib.CommCuDevice, "ncclCommCuDevice", true, lib.path);
  resolve(handle, lib.CommUserRank, "ncclCommUserRank", true, lib.path);
  resolve(handle, lib.GroupStart, "ncclGroupStart", true, lib.path);
  resolve(handle, lib.GroupEnd, "ncclGroupEnd", true, lib.path);
  resolve(handle, lib.AllReduce, "ncclAllReduce", true, lib.path);
  resolve(handle, lib.AllGather, "ncclAllGather", true, lib.path);
  resolve(handle, lib.ReduceScatter, "ncclReduceScatter", true, lib.path);
  resolve(handle, lib.Broadcast, "ncclBroadcast", true, lib.path);
  resolve(handle, lib.Reduce, "ncclReduce", true, lib.path);
  resolve(handle, lib.Send, "ncclSend", true, lib.path);
  resolve(handle, lib.Recv, "ncclRecv", true, lib.path);
  resolve(handle, lib.AlltoAll, "ncclAlltoAll", false, lib.path);
  resolve(handle, lib.Gather, "ncclGather", false, lib.path);
  resolve(handle, lib.Scatter, "ncclScatter", false, lib.path);
  resolve(handle, lib.RedOpCreatePreMulSum, "ncclRedOpCreatePreMulSum", false, lib.path);
  resolve(handle, lib.RedOpDestroy, "ncclRedOpDestroy", false, lib.path);
  resolve(handle, lib.MemAlloc, "ncclMemAlloc", false, lib.path);
  resolve(handle, lib.MemFree, "ncclMemFree", false, lib.path);
  resolve(handle, lib.CommRegister, "ncclCommRegister", false, lib.path);
  resolve(handle, lib.CommDeregister, "ncclCommDeregister", false, lib.path);
  resolve(handle, lib.CommWindowRegister, "ncclCommWindowRegister", false, lib.path);
  resolve(handle, lib.CommWindowDeregister, "ncclCommWindowDeregister", false, lib.path);
  resolve(handle, lib.DevCommCreate, "ncclDevCommCreate", false, lib.path);
  resolve(handle, lib.DevCommDestroy, "ncclDevCommDestroy", false, lib.path);
  if (lib.GetVersion(&lib.version_code) != ncclSuccess) {
    throw DeviceError(fmt::format("NCCL library {}: ncclGetVersion failed", lib.path));
  }
  return lib;
}

}  // namespace

std::string nccl_version_string(int code) {
  if (code >= 10000) return fmt::format("{}.{}.{}", code / 10000, (code % 10000) / 100, code % 100);
  return fmt::format("{}.{}.{}", code / 1000, (code % 1000) / 100, code % 100);
}

std::string NcclLibrary::version_string() const { return nccl_version_string(version_code); }

int nccl_headers_version_code() { return NCCL_VERSION_CODE; }

NcclLibraryInfo nccl_library_info() {
  const NcclLibrary& library = nccl_library();
  return {library.path, library.version_code, library.version_string()};
}

const NcclLibrary& nccl_library() {
  static OpenOnce<NcclLibrary> library;
  return library.get(open_nccl);
}

}  // namespace linkscope::platform
