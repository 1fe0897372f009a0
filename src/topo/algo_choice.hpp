#pragma once
// NCCL's default tuner choice for one collective call (enqueue.cc updateCollCostTable, topoGetAlgoInfo,
// graph/tuning.cc ncclTopoGetAlgoTime): the algorithm and protocol with the lowest predicted time, and the
// channel count NCCL allows for that size; one operation per group, no tuner plugin, CollNet and NVLS off.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "plan/collective_spec.hpp"
#include "topo/tuning_model.hpp"

namespace linkscope::topo {

struct AlgoChoice {
  int func = 0;
  uint64_t size = 0;        // the size asked for (predict_collective), before the per-rank count is rounded
  uint64_t bytes = 0;       // nBytes as the tuner sees it (AllGather/ReduceScatter: the whole buffer)
  bool ok = false;          // false: NCCL finds no algorithm/protocol and the call fails
  int nccl_result = 0;      // when !ok: 5 (invalid usage: NCCL_ALGO/NCCL_PROTO left nothing) or 3 (internal error)
  int algorithm = -1;
  int protocol = -1;
  int channels = 0;         // the most channels NCCL uses for it (the launch may use fewer)
  int threads = 0;          // threads per channel
  float time_us = 0.0f;     // NCCL's predicted time
  double algbw_gbps = 0.0;  // bytes / time
  double busbw_gbps = 0.0;  // algbw x nccl-tests' bus factor (coll::bus_factor)
};

// What the choice reads besides the tables.
struct ChoiceContext {
  int n_ranks = 0;
  int coll_channels = 0;          // comm->nChannels
  bool algo_or_proto_set = false; // NCCL_ALGO or NCCL_PROTO set (turns "no algorithm" into invalid usage)
};

AlgoChoice choose_algorithm(const TuningModel& tuning, const ChoiceContext& context, int func, uint64_t bytes);

// The collective a tuning function stands for (kFuncAllReduce -> all_reduce), and back (nullopt for operations NCCL
// does not tune as a collective: alltoall, sendrecv, gather, scatter).
coll::CollectiveOp collective_op(int func);
std::optional<int> tuning_func(coll::CollectiveOp op);

// NCCL's text for a result code as the harness prints it ("invalid usage (run with NCCL_DEBUG=WARN for details)").
const char* nccl_result_text(int result);

}  // namespace linkscope::topo
