// -D 1 and -D 2 of alltoall_perf: one kernel per rank stores block p of its input straight into block r of peer
// p's output through the symmetric receive window, so every block crosses the fabric once, as in nccl-tests.
#include <nccl_device.h>

#include "measure/devapi_elements.cuh"
#include "measure/devapi_kernels.hpp"

namespace linkscope::measure {

namespace {

using devapi::kVectorBytes;

// Vectors in flight per thread: loads issued together before their stores.
constexpr int kUnroll = coll::kDeviceApiAlltoallVectorsInFlight;

template <typename Unit>
__device__ void copy_units(const Unit* in, Unit* out, std::size_t units, std::size_t tid, std::size_t threads) {
  for (std::size_t v = tid; v < units; v += threads * kUnroll) {
    Unit value[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::size_t at = v + u * threads;
      if (at < units) value[u] = in[at];
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::size_t at = v + u * threads;
      if (at < units) out[at] = value[u];
    }
  }
}

template <typename T, bool kVectorized>
__global__ void __launch_bounds__(coll::kDeviceApiThreadsPerCta)
    alltoall_lsa(ncclWindow_t send, std::size_t send_offset, ncclWindow_t recv, std::size_t recv_offset,
                 std::size_t count, ncclDevComm comm) {
  ncclLsaBarrierSession<ncclCoopCta> barrier{ncclCoopCta(), comm, ncclTeamTagLsa{}, blockIdx.x};
  // Every peer has started this launch: it no longer reads the output blocks this rank is about to overwrite.
  barrier.sync(ncclCoopCta(), cuda::memory_order_acquire);
  const int peers = comm.lsaSize;
  const int rank = comm.lsaRank;
  const std::size_t block_bytes = count * sizeof(T);
  const std::size_t tid = devapi::grid_thread();
  const std::size_t threads = devapi::grid_threads();
  const char* input = static_cast<const char*>(ncclGetLocalPointer(send, send_offset));
  // Every block starts on a 16-byte boundary of both windows only then.
  const bool vectors = kVectorized && sizeof(T) < kVectorBytes && send_offset % kVectorBytes == 0 &&
                       recv_offset % kVectorBytes == 0 && block_bytes % kVectorBytes == 0;
  for (int i = 0; i < peers; ++i) {
    const int peer = (rank + i) % peers;  // start at a different peer on every rank, spreading the stores
    const char* from = input + peer * block_bytes;
    char* to = static_cast<char*>(ncclGetLsaPointer(recv, recv_offset, peer)) + rank * block_bytes;
    if (vectors) {
      copy_units(reinterpret_cast<const uint4*>(from), reinterpret_cast<uint4*>(to), block_bytes / kVectorBytes, tid,
                 threads);
    } else {
      copy_units(reinterpret_cast<const T*>(from), reinterpret_cast<T*>(to), count, tid, threads);
    }
  }
  // Release this CTA's stores to the peers, acquire theirs to this rank: when the launch ends every peer's part
  // of this rank's output is visible to the next work on its stream.
  barrier.sync(ncclCoopCta(), cuda::memory_order_acq_rel);
}

}  // namespace

cudaError_t launch_alltoall_lsa(const DevapiLaunch& launch, const ncclDevComm& comm, bool vectorized) {
  return devapi::launch_typed(launch, comm, [&](auto zero) {
    using T = decltype(zero);
    return vectorized ? alltoall_lsa<T, true> : alltoall_lsa<T, false>;
  });
}

}  // namespace linkscope::measure
