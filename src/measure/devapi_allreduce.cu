// -D 1 and -D 2 of all_reduce_perf: the sum over the LSA team done by one kernel per rank through the symmetric
// windows. Each rank owns a slice of the elements: it reads that slice from every peer, adds, and stores the sum
// into every peer's output, so every element is read n times and written n times in total, as in nccl-tests.
#include <nccl_device.h>

#include "measure/devapi_elements.cuh"
#include "measure/devapi_kernels.hpp"
#include "plan/device_api_layout.hpp"

namespace linkscope::measure {

namespace {

using devapi::add;
using devapi::add_vector;
using devapi::kVectorBytes;

// Vectors in flight per thread per peer: enough outstanding 16-byte loads to cover NVLink latency.
constexpr int kUnroll = 4;

template <typename T>
__device__ void sum_scalars(ncclWindow_t send, std::size_t send_offset, ncclWindow_t recv, std::size_t recv_offset,
                            std::size_t lo, std::size_t hi, int peers, std::size_t tid, std::size_t threads) {
  for (std::size_t i = lo + tid; i < hi; i += threads) {
    T sum = static_cast<const T*>(ncclGetLsaPointer(send, send_offset, 0))[i];
    for (int p = 1; p < peers; ++p) sum = add(sum, static_cast<const T*>(ncclGetLsaPointer(send, send_offset, p))[i]);
    for (int p = 0; p < peers; ++p) static_cast<T*>(ncclGetLsaPointer(recv, recv_offset, p))[i] = sum;
  }
}

// Elements [first, first + vectors * per_vector), `first` on a vector boundary of both windows.
template <typename T>
__device__ void sum_vectors(ncclWindow_t send, std::size_t send_offset, ncclWindow_t recv, std::size_t recv_offset,
                            std::size_t first, std::size_t vectors, int peers, std::size_t tid, std::size_t threads) {
  const std::size_t send_at = send_offset + first * sizeof(T);
  const std::size_t recv_at = recv_offset + first * sizeof(T);
  for (std::size_t v = tid; v < vectors; v += threads * kUnroll) {
    uint4 sum[kUnroll];
    const uint4* own = static_cast<const uint4*>(ncclGetLsaPointer(send, send_at, 0));
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::size_t at = v + u * threads;
      if (at < vectors) sum[u] = own[at];
    }
    for (int p = 1; p < peers; ++p) {
      const uint4* in = static_cast<const uint4*>(ncclGetLsaPointer(send, send_at, p));
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const std::size_t at = v + u * threads;
        if (at < vectors) sum[u] = add_vector<T>(sum[u], in[at]);
      }
    }
    for (int p = 0; p < peers; ++p) {
      uint4* out = static_cast<uint4*>(ncclGetLsaPointer(recv, recv_at, p));
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const std::size_t at = v + u * threads;
        if (at < vectors) out[at] = sum[u];
      }
    }
  }
}

template <typename T, bool kVectorized>
__global__ void __launch_bounds__(coll::kDeviceApiThreadsPerCta)
    allreduce_lsa(ncclWindow_t send, std::size_t send_offset, ncclWindow_t recv, std::size_t recv_offset,
                  std::size_t count, ncclDevComm comm) {
  ncclLsaBarrierSession<ncclCoopCta> barrier{ncclCoopCta(), comm, ncclTeamTagLsa{}, blockIdx.x};
  // Every peer has started this launch: its earlier work on these buffers (inputs written, outputs read) is done.
  barrier.sync(ncclCoopCta(), cuda::memory_order_acquire);
  const int peers = comm.lsaSize;
  const coll::ElementRange mine = coll::allreduce_slice(count, peers, comm.lsaRank, kVectorBytes / sizeof(T));
  const std::size_t tid = devapi::grid_thread();
  const std::size_t threads = devapi::grid_threads();
  const bool aligned = send_offset % kVectorBytes == recv_offset % kVectorBytes;
  if (kVectorized && aligned) {
    const coll::VectorSplit split = coll::split_for_vectors(mine, send_offset, sizeof(T));
    sum_scalars<T>(send, send_offset, recv, recv_offset, mine.begin, split.first_vector, peers, tid, threads);
    sum_vectors<T>(send, send_offset, recv, recv_offset, split.first_vector, split.vectors, peers, tid, threads);
    sum_scalars<T>(send, send_offset, recv, recv_offset, split.tail, mine.end, peers, tid, threads);
  } else {
    sum_scalars<T>(send, send_offset, recv, recv_offset, mine.begin, mine.end, peers, tid, threads);
  }
  // Release this CTA's stores to the peers, acquire theirs to this rank: when the launch ends every peer's part
  // of this rank's output is visible to the next work on its stream.
  barrier.sync(ncclCoopCta(), cuda::memory_order_acq_rel);
}

}  // namespace

cudaError_t launch_allreduce_lsa(const DevapiLaunch& launch, const ncclDevComm& comm, bool vectorized) {
  return devapi::launch_typed(launch, comm, [&](auto zero) {
    using T = decltype(zero);
    return vectorized ? allreduce_lsa<T, true> : allreduce_lsa<T, false>;
  });
}

}  // namespace linkscope::measure
