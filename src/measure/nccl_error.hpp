#pragma once
#include <nccl.h>

#include <string>

namespace linkscope::measure {

// NCCL's error string, its last-error text (when the library has ncclGetLastError) and a hint on where to
// look next, as one line.
std::string nccl_error_message(ncclResult_t result, const std::string& call, ncclComm_t comm = nullptr);

// Throws DeviceError (exit 3) with nccl_error_message() unless `result` is ncclSuccess.
void nccl_check(ncclResult_t result, const std::string& call, ncclComm_t comm = nullptr);

}  // namespace linkscope::measure
