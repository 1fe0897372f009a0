#pragma once
// NCCL's view of one communicator on the node a topology XML describes (every GPU a rank, one node,
// NVLS and CollNet off): the ring and tree graph search, the channels NCCL connects, its tuning model and, per
// collective and size, the algorithm, protocol and channel count its default tuner picks. Pure: the topology
// model and the variables are the inputs; nothing is printed.
//
//   const auto comm = linkscope::topo::model_communicator(model, linkscope::topo::resolve_comm_params(env));
//   for (const auto& choice : linkscope::topo::predict_collective(comm, linkscope::topo::kFuncAllReduce)) ...
#include <cstdint>
#include <string>
#include <vector>

#include "topo/algo_choice.hpp"
#include "topo/channel_setup.hpp"
#include "topo/comm_params.hpp"
#include "topo/graph_search.hpp"
#include "topo/topology_model.hpp"
#include "topo/tuning_model.hpp"

namespace linkscope::topo {

struct CommunicatorModel {
  // Why nothing below was computed (no GPU in the file, ranks that are not 0..n-1, a path NCCL's BFS would not
  // have built); empty when the model is complete.
  std::string unavailable;
  bool search_failed = false;   // NCCL itself stops in the ring search (`ring.error`); `unavailable` says so
  int n_ranks = 0;
  int n_nodes = 1;
  bool cross_nic_read = false;  // NCCL reads NCCL_CROSS_NIC (more than one NET: rings may cross NICs)
  GraphSearchResult ring;       // as searched (before NCCL aligns ring and tree to the same channel count)
  GraphSearchResult tree;
  ChannelSetup channels;
  TuningModel tuning;
  CommParams params;
  ModelledVersion version;      // the NCCL whose rules were applied (the topology model's)
};

CommunicatorModel model_communicator(const TopologyModel& model, const CommParams& params);

// NCCL's choice for one collective (kFuncAllReduce ...) of `bytes` as the tuner sees them; see AlgoChoice.
AlgoChoice predict_call(const CommunicatorModel& comm, int func, uint64_t bytes);
// 2^3 .. 2^33 bytes, the sizes of the expected-output harness.
std::vector<uint64_t> prediction_sizes();
// The bytes the tuner sees for a call of about `size` bytes, as the expected-output harness makes the call:
// elementSize x ncclFuncMaxSendRecvCount(count), float32 for reductions whose per-rank count comes out whole, else
// int8 (AllGather and Broadcast always int8); the per-rank count of AllGather/ReduceScatter is size / (ranks x
// element size), rounded down. With 2, 4 or 8 ranks that is `size` itself.
uint64_t tuner_bytes(int func, int n_ranks, uint64_t size);
// predict_call at every prediction size (AlgoChoice::size = the size asked, bytes = tuner_bytes); empty when there is
// no model, NCCL refuses the communicator, or there is one rank (NCCL then copies the buffer without the tuner).
std::vector<AlgoChoice> predict_collective(const CommunicatorModel& comm, int func);

}  // namespace linkscope::topo
