#pragma once
#include <optional>
#include <string>
#include <string_view>

#include "model/runtime.hpp"

// NCCL's per-call TUNING lines (NCCL_DEBUG_SUBSYS=TUNING, printed by rank 0 for every launch; enqueue.cc and
// scheduler/symmetric_sched.cc of NCCL 2.28):
//   "AllReduce: 67108864 Bytes -> Algo RING proto LL128 channel{Lo..Hi}={0..23}"
//   "AllReduce [Symmetric]: 1048576 Bytes -> Kernel AllReduce_AGxLL_R nchannels 16 nthreads 512 nWorks 1"
//   "AllGather [Copy Engine]: 16777216 Bytes -> cudaMemcpy" (2.29 and later; algorithm "CopyEngine", no channels)
// The format is the same in NCCL 2.28.9, 2.29.7, 2.30.3 and 2.30.7.
namespace linkscope::runtime {

// The call one line describes (calls = 1), or nothing when the message is not such a line. `nranks` (the
// communicator's, from its "comm ... nRanks N" line) turns AllGather/ReduceScatter's per-rank bytes into nccl-tests'
// whole-buffer size; without it their size_bytes stays 0 (unknown).
std::optional<model::NcclTuningCall> parse_tuning_line(std::string_view message, std::optional<int> nranks);

// NCCL's spellings in these lines ("RING", "COLLNET_DIRECT", "SIMPLE") as its tuner tables write them ("Ring",
// "CollNetDirect", "Simple"); unknown names stay as printed.
std::string tuner_algorithm_name(std::string_view nccl_name);
std::string tuner_protocol_name(std::string_view nccl_name);
// "AllReduce" -> "all_reduce" (nccl-tests' name); unknown names stay as printed.
std::string collective_name(std::string_view nccl_name);

}  // namespace linkscope::runtime
