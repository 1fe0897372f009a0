#include "measure/collective_wait.hpp"

#include <chrono>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "measure/nccl_error.hpp"
#include "platform/cuda_check.hpp"
#include "platform/nccl_library.hpp"

namespace linkscope::measure {

namespace {
constexpr double kSpinSeconds = 1.0;
}  // namespace

WaitOutcome wait_for_streams(NcclCommunicators& comms, double timeout_s) {
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  const auto& nccl = platform::nccl_library();
  std::vector<bool> done(comms.local_count(), false);
  std::size_t remaining = comms.local_count();
  WaitOutcome outcome;
  while (remaining > 0) {
    bool progressed = false;
    for (std::size_t i = 0; i < comms.local_count(); ++i) {
      if (done[i]) continue;
      const cudaError_t status = cudaStreamQuery(comms.stream(i));
      if (status == cudaSuccess) {
        done[i] = true;
        --remaining;
        progressed = true;
        continue;
      }
      if (status != cudaErrorNotReady) LINKSCOPE_CUDA_CHECK(status);
      ncclResult_t async = ncclSuccess;
      const ncclResult_t query = nccl.CommGetAsyncError(comms.comm(i), &async);
      if (query != ncclSuccess || async != ncclSuccess) {
        outcome.kind = WaitOutcome::Kind::kAsyncError;
        outcome.message = nccl_error_message(query != ncclSuccess ? query : async,
                                             fmt::format("NCCL (rank {}, asynchronous)", comms.local(i).rank),
                                             comms.comm(i));
        comms.abort();
        break;
      }
    }
    outcome.waited_s = std::chrono::duration<double>(clock::now() - start).count();
    if (outcome.kind != WaitOutcome::Kind::kDone) return outcome;
    if (remaining == 0) break;
    if (timeout_s > 0 && outcome.waited_s > timeout_s) {
      outcome.kind = WaitOutcome::Kind::kTimeout;
      outcome.message = fmt::format("the GPUs made no progress for {:.1f} s (--timeout {:g}); NCCL communicators aborted",
                                    outcome.waited_s, timeout_s);
      comms.abort();
      return outcome;
    }
    // The first second spins on cudaStreamQuery as nccl-tests' testStreamSynchronize does: the host-timed loop
    // of the personalities ends when this returns, so a sleep here is timed (the earlier 50 us sleep from 2 ms
    // on added up to 50 us to every loop longer than that). Waits longer than a second (a hung GPU, a huge
    // sweep) stop burning a core; 50 us is < 0.005% of them.
    if (!progressed && outcome.waited_s >= kSpinSeconds) std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
  return outcome;
}

}  // namespace linkscope::measure
