#pragma once
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "measure/devapi_gate.hpp"
#include "plan/device_api.hpp"

// The host side of -D: nccl-tests' version gate, one device communicator per local rank (ncclDevCommCreate with the
// implementation's requirements, after the -R 2 windows exist), the launch of the kernel in place of the NCCL call,
// and ncclDevCommDestroy. NCCL's device functions are resolved at run time (platform/nccl_library.hpp).
namespace linkscope::measure {

class NcclCommunicators;

// One launch: the offsets are bytes into the rank's send and receive windows.
struct DevapiCall {
  std::size_t local = 0;       // which local rank
  bool input_in_recv = false;  // in place: the input is the receive window
  std::size_t send_offset = 0;
  std::size_t recv_offset = 0;
  std::uint64_t count = 0;
  coll::DataType type = coll::DataType::kFloat;
};

class DevapiSession {
 public:
  // Creates the device communicators (one NCCL group over the local ranks; every rank must call it). Throws
  // NCCL's error when NCCL cannot meet the requirements (multimem without NVLS), UsageError with nccl-tests' text
  // when the LSA team is not every rank, and UsageError when linkscope lacks the implementation's kernel.
  DevapiSession(NcclCommunicators& comms, const coll::DeviceApiPlan& plan, std::vector<ncclWindow_t> send_windows,
                std::vector<ncclWindow_t> recv_windows);
  ~DevapiSession();
  DevapiSession(const DevapiSession&) = delete;
  DevapiSession& operator=(const DevapiSession&) = delete;

  // Enqueues the kernel on the local rank's stream; DeviceError when CUDA refuses the launch.
  void launch(const DevapiCall& call) const;
  // After an abort NCCL must not be called again: the device communicators are dropped with the process.
  void forget();

  struct Impl;

 private:
  NcclCommunicators& comms_;
  coll::DeviceApiPlan plan_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace linkscope::measure
