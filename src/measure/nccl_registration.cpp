#include "measure/nccl_registration.hpp"

#include <cstdio>

#include <fmt/format.h>

#include "core/error.hpp"
#include "measure/nccl_error.hpp"
#include "platform/nccl_library.hpp"

namespace linkscope::measure {

void* const* NcclRegistrations::add(ncclComm_t comm, void* buffer, std::size_t bytes) {
  if (mode_ == 0) return nullptr;
  const auto& nccl = platform::nccl_library();
  if (mode_ == 2 && (nccl.CommWindowRegister == nullptr || nccl.CommWindowDeregister == nullptr)) {
    throw DeviceError(fmt::format("-R 2 needs ncclCommWindowRegister (NCCL >= 2.27); the loaded NCCL {} lacks it",
                                  nccl.version_string()));
  }
  if (mode_ == 1 && (nccl.CommRegister == nullptr || nccl.CommDeregister == nullptr)) {
    throw DeviceError(fmt::format("-R 1 needs ncclCommRegister (NCCL >= 2.19); the loaded NCCL {} lacks it",
                                  nccl.version_string()));
  }
  Entry& entry = entries_.emplace_back(Entry{comm, nullptr});
  const ncclResult_t result =
      mode_ == 2 ? nccl.CommWindowRegister(comm, buffer, bytes, reinterpret_cast<ncclWindow_t*>(&entry.handle),
                                           NCCL_WIN_COLL_SYMMETRIC)
                 : nccl.CommRegister(comm, buffer, bytes, &entry.handle);
  // On failure the entry stays (its handle null): inside a group NCCL may still hold the slot's address.
  if (result != ncclSuccess) nccl_check(result, mode_ == 2 ? "ncclCommWindowRegister" : "ncclCommRegister", comm);
  return &entry.handle;
}

NcclRegistrations::~NcclRegistrations() {
  const auto& nccl = platform::nccl_library();
  for (const auto& e : entries_) {
    // No handle: NCCL made no window (no symmetric memory), the registration failed, or its group did not end.
    if (e.handle == nullptr) continue;
    const ncclResult_t result = mode_ == 2 ? nccl.CommWindowDeregister(e.comm, static_cast<ncclWindow_t>(e.handle))
                                           : nccl.CommDeregister(e.comm, e.handle);
    if (result != ncclSuccess) {
      std::fprintf(stderr, "linkscope: warning: NCCL buffer deregistration failed: %s\n", nccl.GetErrorString(result));
    }
  }
}

}  // namespace linkscope::measure
