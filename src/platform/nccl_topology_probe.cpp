#include "platform/nccl_topology_probe.hpp"

#include <chrono>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "platform/cuda_resources.hpp"
#include "platform/nccl_library.hpp"

namespace linkscope::platform {

NcclProbeOutcome run_nccl_topology_probe() {
  const NcclLibrary& nccl = nccl_library();
  const char* reason = nullptr;
  const int count = cuda_device_count_or_zero(&reason);
  if (count == 0) throw DeviceError(fmt::format("no CUDA device for NCCL: {}", reason != nullptr ? reason : "none visible"));
  std::vector<ncclComm_t> comms(static_cast<std::size_t>(count), nullptr);
  const auto start = std::chrono::steady_clock::now();
  const ncclResult_t status = nccl.CommInitAll(comms.data(), count, nullptr);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (status != ncclSuccess) {
    const char* detail = nccl.GetLastError != nullptr ? nccl.GetLastError(nullptr) : nullptr;
    throw DeviceError(fmt::format("ncclCommInitAll over {} GPU(s) failed: {}{}{}", count, nccl.GetErrorString(status),
                                  detail != nullptr && *detail != '\0' ? ": " : "", detail != nullptr ? detail : ""));
  }
  for (ncclComm_t comm : comms) {
    if (comm != nullptr) nccl.CommDestroy(comm);
  }
  return {nccl.version_string(), count, seconds};
}

}  // namespace linkscope::platform
