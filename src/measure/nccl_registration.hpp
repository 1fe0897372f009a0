#pragma once
#include <nccl.h>

#include <cstddef>
#include <deque>

// nccl-tests' -R: the benchmark's buffers registered with NCCL, 1 as local buffers (ncclCommRegister, zero-copy
// where a transport can use it), 2 as symmetric windows (ncclCommWindowRegister, NCCL >= 2.27, for NCCL's
// symmetric kernels). Both are resolved at run time; a library without them is a DeviceError naming the function.
namespace linkscope::measure {

class NcclRegistrations {
 public:
  explicit NcclRegistrations(int mode) : mode_(mode) {}
  ~NcclRegistrations();
  NcclRegistrations(const NcclRegistrations&) = delete;
  NcclRegistrations& operator=(const NcclRegistrations&) = delete;

  // Registers `bytes` at `buffer` with `comm` (nothing in mode 0: nullptr) and returns where NCCL puts its handle
  // (mode 2: the ncclWindow_t). Every rank of the communicator must call it: registration is collective in NCCL.
  // Inside a group NCCL writes a window only when the group ends (2.28 queues the registration as a group task), so
  // the slot stays valid for this object's lifetime and is read after ncclGroupEnd.
  void* const* add(ncclComm_t comm, void* buffer, std::size_t bytes);
  // After an abort NCCL must not be called again: the handles are dropped with the process.
  void forget() { entries_.clear(); }

 private:
  struct Entry {
    ncclComm_t comm = nullptr;
    void* handle = nullptr;
  };
  int mode_;
  std::deque<Entry> entries_;  // a deque: NCCL holds the address of each handle until its group ends
};

}  // namespace linkscope::measure
