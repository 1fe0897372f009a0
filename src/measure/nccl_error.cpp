#include "measure/nccl_error.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "platform/nccl_library.hpp"

namespace linkscope::measure {

namespace {

const char* hint_for(ncclResult_t result) {
  switch (result) {
    case ncclUnhandledCudaError:
      return "a CUDA call inside NCCL failed: check the GPUs with nvidia-smi (Xid errors, another process in "
             "exclusive mode, out of memory)";
    case ncclSystemError:
      return "a system call failed (sockets, shared memory, /dev/shm size in containers); rerun with NCCL_DEBUG=WARN";
    case ncclInternalError: return "NCCL hit an internal error; rerun with NCCL_DEBUG=WARN for its reason";
    case ncclInvalidArgument:
    case ncclInvalidUsage:
      return "NCCL rejected the call; rerun with NCCL_DEBUG=WARN for the argument it refused";
    case ncclRemoteError:
      return "a peer failed or went away (network, another rank crashed); check the other ranks' output";
    default: return "rerun with NCCL_DEBUG=WARN for NCCL's reason";
  }
}

}  // namespace

std::string nccl_error_message(ncclResult_t result, const std::string& call, ncclComm_t comm) {
  const auto& nccl = platform::nccl_library();
  std::string text = fmt::format("{} failed: {}", call, nccl.GetErrorString(result));
  if (nccl.GetLastError != nullptr) {
    const char* last = nccl.GetLastError(comm);
    if (last != nullptr && *last != '\0') text += fmt::format(" ({})", last);
  }
  text += fmt::format("; hint: {}", hint_for(result));
  return text;
}

void nccl_check(ncclResult_t result, const std::string& call, ncclComm_t comm) {
  if (result == ncclSuccess) return;
  throw DeviceError(nccl_error_message(result, call, comm));
}

}  // namespace linkscope::measure
