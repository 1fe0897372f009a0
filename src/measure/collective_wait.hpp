#pragma once
#include <string>

#include "measure/nccl_communicators.hpp"

namespace linkscope::measure {

struct WaitOutcome {
  enum class Kind { kDone, kTimeout, kAsyncError };
  Kind kind = Kind::kDone;
  double waited_s = 0;
  std::string message;  // empty when done
  bool done() const { return kind == Kind::kDone; }
};

// Waits until every stream of `comms` is idle by polling (cudaStreamQuery and ncclCommGetAsyncError), never
// with a blocking synchronize, so a hung collective cannot hang linkscope: when `timeout_s` (> 0) passes
// without the streams finishing, or NCCL reports an asynchronous error, the communicators are aborted
// (ncclCommAbort) and the outcome says why. Throws DeviceError for a CUDA error on a stream.
WaitOutcome wait_for_streams(NcclCommunicators& comms, double timeout_s);

}  // namespace linkscope::measure
