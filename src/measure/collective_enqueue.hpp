#pragma once
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "plan/collective_spec.hpp"

namespace linkscope::measure {

// One rank's part of one collective: what NCCL is asked to do.
struct CollectiveCall {
  coll::CollectiveOp op = coll::CollectiveOp::kAllReduce;
  coll::DataType type = coll::DataType::kFloat;
  ncclRedOp_t redop = ncclSum;  // a PreMulSum handle for mulsum
  int root = 0;
  int rank = 0;
  int nranks = 1;
  std::uint64_t count = 0;      // the "count" column (CollectiveCounts::param_count)
  const std::vector<std::uint64_t>* peer_bytes = nullptr;  // alltoallv: CollectiveCounts::peer_bytes
};

// Enqueues the call on `stream`. ncclAlltoAll, ncclGather and ncclScatter are used when the runtime NCCL
// exports them (>= 2.28), otherwise grouped ncclSend/ncclRecv as nccl-tests does; sendrecv is the ring
// shift r -> r+1. Returns NCCL's result (the caller decides how to report it).
ncclResult_t enqueue_collective(const CollectiveCall& call, const void* send, void* recv, ncclComm_t comm,
                                cudaStream_t stream);

// The PreMulSum scalar nccl-tests uses (2 on odd ranks, 1 on even ranks), as the bytes of `type`.
std::uint64_t premulsum_scalar_bits(coll::DataType type, int rank);

// What enqueue_collective() calls for `op` with the loaded NCCL: "ncclAllReduce", "ncclAlltoAll", or
// "grouped ncclSend/ncclRecv" where the library lacks the collective (and always for sendrecv).
std::string nccl_call_name(coll::CollectiveOp op);

}  // namespace linkscope::measure
