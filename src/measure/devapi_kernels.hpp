#pragma once
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstddef>
#include <cstdint>

#include "plan/collective_spec.hpp"

struct ncclDevComm;  // nccl_device/core.h: included only by the .cu files that hold the kernels

// The -D kernels, written against NCCL 2.28's device API from its documentation and the data movement nccl-tests
// 2.19.6 measures: every rank's peers' buffers are reached by load/store through the symmetric windows of -R 2
// (ncclGetLsaPointer), and an LSA barrier per CTA (one of the -V) orders each launch against the peers' previous
// and next one. Launched as -V blocks of coll::kDeviceApiThreadsPerCta threads.
namespace linkscope::measure {

struct DevapiLaunch {
  ncclWindow_t send = nullptr;
  std::size_t send_offset = 0;  // bytes into the window
  ncclWindow_t recv = nullptr;
  std::size_t recv_offset = 0;
  std::uint64_t count = 0;      // all_reduce: elements; alltoall: elements per peer
  coll::DataType type = coll::DataType::kFloat;
  int ctas = 16;
  cudaStream_t stream = nullptr;
};

// Sum over the LSA team: rank r reduces the r-th slice of the elements from every peer's input and stores the sum
// into every peer's output. `vectorized`: 16-byte loads and stores where the two offsets allow them (-D 2).
cudaError_t launch_allreduce_lsa(const DevapiLaunch& launch, const ncclDevComm& comm, bool vectorized);

// Every rank stores block p of its input into block r of peer p's output (-D 1), with 16-byte stores where the
// offsets and the block size allow them (-D 2).
cudaError_t launch_alltoall_lsa(const DevapiLaunch& launch, const ncclDevComm& comm, bool vectorized);

}  // namespace linkscope::measure
