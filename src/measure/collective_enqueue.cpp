#include "measure/collective_enqueue.hpp"

#include <cstring>

#include "platform/nccl_library.hpp"

namespace linkscope::measure {

namespace {

template <typename Body>
ncclResult_t grouped(const platform::NcclLibrary& nccl, Body&& body) {
  ncclResult_t result = nccl.GroupStart();
  if (result != ncclSuccess) return result;
  const ncclResult_t inner = body();
  result = nccl.GroupEnd();
  return inner != ncclSuccess ? inner : result;
}

}  // namespace

std::string nccl_call_name(coll::CollectiveOp op) {
  const auto& nccl = platform::nccl_library();
  switch (op) {
    case coll::CollectiveOp::kAllReduce: return "ncclAllReduce";
    case coll::CollectiveOp::kAllGather: return "ncclAllGather";
    case coll::CollectiveOp::kReduceScatter: return "ncclReduceScatter";
    case coll::CollectiveOp::kBroadcast: return "ncclBroadcast";
    case coll::CollectiveOp::kReduce: return "ncclReduce";
    case coll::CollectiveOp::kAlltoAll: return nccl.AlltoAll != nullptr ? "ncclAlltoAll" : "grouped ncclSend/ncclRecv";
    case coll::CollectiveOp::kGather: return nccl.Gather != nullptr ? "ncclGather" : "grouped ncclSend/ncclRecv";
    case coll::CollectiveOp::kScatter: return nccl.Scatter != nullptr ? "ncclScatter" : "grouped ncclSend/ncclRecv";
    case coll::CollectiveOp::kSendRecv: return "grouped ncclSend/ncclRecv";
    case coll::CollectiveOp::kHypercube: return "hypercube: cudaMemcpyAsync, then grouped ncclSend/ncclRecv with rank ^ 2^k";
    case coll::CollectiveOp::kAlltoAllv: return "grouped ncclSend/ncclRecv of per-peer sizes";
  }
  return "";
}

ncclResult_t enqueue_collective(const CollectiveCall& call, const void* send, void* recv, ncclComm_t comm,
                                cudaStream_t stream) {
  const auto& nccl = platform::nccl_library();
  const auto type = static_cast<ncclDataType_t>(call.type);
  const std::size_t chunk = call.count * coll::type_size(call.type);
  const char* send_bytes = static_cast<const char*>(send);
  char* recv_bytes = static_cast<char*>(recv);
  switch (call.op) {
    case coll::CollectiveOp::kAllReduce: return nccl.AllReduce(send, recv, call.count, type, call.redop, comm, stream);
    case coll::CollectiveOp::kAllGather: return nccl.AllGather(send, recv, call.count, type, comm, stream);
    case coll::CollectiveOp::kReduceScatter:
      return nccl.ReduceScatter(send, recv, call.count, type, call.redop, comm, stream);
    case coll::CollectiveOp::kBroadcast: return nccl.Broadcast(send, recv, call.count, type, call.root, comm, stream);
    case coll::CollectiveOp::kReduce:
      return nccl.Reduce(send, recv, call.count, type, call.redop, call.root, comm, stream);
    case coll::CollectiveOp::kAlltoAll:
      if (nccl.AlltoAll != nullptr) return nccl.AlltoAll(send, recv, call.count, type, comm, stream);
      return grouped(nccl, [&] {
        for (int peer = 0; peer < call.nranks; ++peer) {
          ncclResult_t r = nccl.Send(send_bytes + peer * chunk, call.count, type, peer, comm, stream);
          if (r == ncclSuccess) r = nccl.Recv(recv_bytes + peer * chunk, call.count, type, peer, comm, stream);
          if (r != ncclSuccess) return r;
        }
        return ncclSuccess;
      });
    case coll::CollectiveOp::kSendRecv:
      return grouped(nccl, [&] {
        ncclResult_t r = nccl.Send(send, call.count, type, (call.rank + 1) % call.nranks, comm, stream);
        if (r == ncclSuccess) r = nccl.Recv(recv, call.count, type, (call.rank - 1 + call.nranks) % call.nranks, comm, stream);
        return r;
      });
    case coll::CollectiveOp::kGather:
      if (nccl.Gather != nullptr) return nccl.Gather(send, recv, call.count, type, call.root, comm, stream);
      if (call.count == 0) return ncclSuccess;
      return grouped(nccl, [&] {
        ncclResult_t r = nccl.Send(send, call.count, type, call.root, comm, stream);
        if (call.rank == call.root) {
          for (int peer = 0; peer < call.nranks && r == ncclSuccess; ++peer) {
            r = nccl.Recv(recv_bytes + peer * chunk, call.count, type, peer, comm, stream);
          }
        }
        return r;
      });
    case coll::CollectiveOp::kScatter:
      if (nccl.Scatter != nullptr) return nccl.Scatter(send, recv, call.count, type, call.root, comm, stream);
      if (call.count == 0) return ncclSuccess;
      return grouped(nccl, [&] {
        ncclResult_t r = ncclSuccess;
        if (call.rank == call.root) {
          for (int peer = 0; peer < call.nranks && r == ncclSuccess; ++peer) {
            r = nccl.Send(send_bytes + peer * chunk, call.count, type, peer, comm, stream);
          }
        }
        if (r == ncclSuccess) r = nccl.Recv(recv, call.count, type, call.root, comm, stream);
        return r;
      });
    case coll::CollectiveOp::kHypercube: {
      // nccl-tests' hypercube all-gather: the own block into place, then in round k the 2^k blocks gathered so far
      // are exchanged with rank ^ 2^k.
      char* own = recv_bytes + static_cast<std::size_t>(call.rank) * chunk;
      if (own != send_bytes && chunk > 0) {
        if (cudaMemcpyAsync(own, send, chunk, cudaMemcpyDeviceToDevice, stream) != cudaSuccess) return ncclUnhandledCudaError;
      }
      for (int mask = 1; mask < call.nranks; mask <<= 1) {
        const int first_sent = call.rank & ~(mask - 1);
        const int first_received = first_sent ^ mask;
        const ncclResult_t r = grouped(nccl, [&] {
          ncclResult_t e = nccl.Send(recv_bytes + static_cast<std::size_t>(first_sent) * chunk, call.count * mask, type,
                                     call.rank ^ mask, comm, stream);
          if (e == ncclSuccess) {
            e = nccl.Recv(recv_bytes + static_cast<std::size_t>(first_received) * chunk, call.count * mask, type,
                          call.rank ^ mask, comm, stream);
          }
          return e;
        });
        if (r != ncclSuccess) return r;
      }
      return ncclSuccess;
    }
    case coll::CollectiveOp::kAlltoAllv:
      if (call.peer_bytes == nullptr) return ncclInvalidArgument;
      // As nccl-tests: each peer's part follows the previous one in both buffers; empty parts are not sent.
      return grouped(nccl, [&] {
        const std::size_t element = coll::type_size(call.type);
        const char* next_send = send_bytes;
        char* next_recv = recv_bytes;
        for (int peer = 0; peer < call.nranks; ++peer) {
          const std::uint64_t sent = (*call.peer_bytes)[static_cast<std::size_t>(call.rank) * call.nranks + peer] / element;
          const std::uint64_t received = (*call.peer_bytes)[static_cast<std::size_t>(peer) * call.nranks + call.rank] / element;
          if (sent > 0) {
            const ncclResult_t r = nccl.Send(next_send, sent, type, peer, comm, stream);
            if (r != ncclSuccess) return r;
            next_send += sent * element;
          }
          if (received > 0) {
            const ncclResult_t r = nccl.Recv(next_recv, received, type, peer, comm, stream);
            if (r != ncclSuccess) return r;
            next_recv += received * element;
          }
        }
        return ncclSuccess;
      });
  }
  return ncclInvalidArgument;
}

std::uint64_t premulsum_scalar_bits(coll::DataType type, int rank) {
  const bool two = rank % 2 == 1;
  switch (type) {
    case coll::DataType::kInt8:
    case coll::DataType::kUint8:
    case coll::DataType::kInt32:
    case coll::DataType::kUint32:
    case coll::DataType::kInt64:
    case coll::DataType::kUint64: return two ? 2 : 1;
    case coll::DataType::kHalf: return two ? 0x4000 : 0x3c00;
    case coll::DataType::kBfloat16: return two ? 0x4000 : 0x3f80;
    case coll::DataType::kF8e4m3: return two ? 0x40 : 0x38;
    case coll::DataType::kF8e5m2: return two ? 0x40 : 0x3c;
    case coll::DataType::kFloat: {
      const float value = two ? 2.0f : 1.0f;
      std::uint32_t bits = 0;
      std::memcpy(&bits, &value, sizeof bits);
      return bits;
    }
    case coll::DataType::kDouble: {
      const double value = two ? 2.0 : 1.0;
      std::uint64_t bits = 0;
      std::memcpy(&bits, &value, sizeof bits);
      return bits;
    }
  }
  return 1;
}

}  // namespace linkscope::measure
