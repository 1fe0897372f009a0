#include "topo/algo_choice.hpp"

#include "core/size.hpp"
#include "topo/tuning_constants.hpp"

namespace linkscope::topo {

namespace {

constexpr float kIgnore = -1.0f;            // nccl_tuner.h NCCL_ALGO_PROTO_IGNORE
constexpr float kNoTimeYet = 3600000000.0f;  // topoGetAlgoInfo's starting minimum
constexpr int kResultInternalError = 3;      // ncclInternalError
constexpr int kResultInvalidUsage = 5;       // ncclInvalidUsage

// ncclTopoGetAlgoTime with one operation per group on one node: latency + bytes / bandwidth, the AllReduce tree
// bandwidth corrected per size. -1 when NCCL never picks the combination (bandwidth 0).
float algo_time(const TuningModel& tuning, int func, int algo, int proto, uint64_t bytes) {
  float bw = tuning.bandwidth_gbps[func][algo][proto];
  const float lat = tuning.latency_us[func][algo][proto];
  if (bw == 0) return -1.0f;
  const int log_size = log2_down(bytes >> 6);
  if (algo == kAlgoTree && func == kFuncAllReduce && log_size >= 0 && log_size < 23) {
    bw *= tuning::kTreeCorrectionFactor[proto][log_size];
  }
  const int lat_count = 1;  // one pipelined operation
  return lat * static_cast<float>(lat_count) + static_cast<float>(bytes) / (1000 * bw);
}

}  // namespace

coll::CollectiveOp collective_op(int func) {
  switch (func) {
    case kFuncBroadcast: return coll::CollectiveOp::kBroadcast;
    case kFuncReduce: return coll::CollectiveOp::kReduce;
    case kFuncAllGather: return coll::CollectiveOp::kAllGather;
    case kFuncReduceScatter: return coll::CollectiveOp::kReduceScatter;
    default: return coll::CollectiveOp::kAllReduce;
  }
}

std::optional<int> tuning_func(coll::CollectiveOp op) {
  for (int func = 0; func < kFuncCount; ++func) {
    if (collective_op(func) == op) return func;
  }
  return std::nullopt;
}

const char* nccl_result_text(int result) {
  switch (result) {
    case 0: return "no error";
    case kResultInternalError: return "internal error - please report this issue to the NCCL developers";
    case kResultInvalidUsage: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    default: return "unknown result code";
  }
}

AlgoChoice choose_algorithm(const TuningModel& tuning, const ChoiceContext& context, int func, uint64_t bytes) {
  AlgoChoice choice;
  choice.func = func;
  choice.size = bytes;
  choice.bytes = bytes;

  // updateCollCostTable: CollNet and NVLS are not supported here; one rank is a local copy (Ring/Simple, 0 us).
  PerAlgoProto<float> table;
  for (auto& per_proto : table) per_proto.fill(kIgnore);
  if (context.n_ranks == 1) {
    table[kAlgoRing][kProtoSimple] = 0.0f;
  } else {
    for (int a = 0; a < kAlgoCount; ++a) {
      if (a == kAlgoCollnetDirect || a == kAlgoCollnetChain || a == kAlgoNvls || a == kAlgoNvlsTree) continue;
      for (int p = 0; p < kProtoCount; ++p) {
        table[a][p] = algo_time(tuning, func, a, p, bytes);
      }
    }
  }

  // topoGetAlgoInfo: the first combination with the lowest time.
  float min_time = kNoTimeYet;
  for (int a = 0; a < kAlgoCount; ++a) {
    for (int p = 0; p < kProtoCount; ++p) {
      const float time = table[a][p];
      if (time == kIgnore) continue;
      if (time >= 0.0f && time < min_time) {
        choice.algorithm = a;
        choice.protocol = p;
        min_time = time;
      }
    }
  }
  if (choice.algorithm < 0) {
    choice.nccl_result = context.algo_or_proto_set ? kResultInvalidUsage : kResultInternalError;
    return choice;
  }
  choice.ok = true;
  choice.time_us = min_time;

  // Fewer channels, then fewer threads, while each thread would have less than its threshold of bytes.
  const auto a = static_cast<std::size_t>(choice.algorithm);
  const auto p = static_cast<std::size_t>(choice.protocol);
  int nc = context.coll_channels;
  int nt = tuning.max_threads[a][p];
  const int64_t threshold = tuning.thread_thresholds[a][p];
  while (bytes < static_cast<uint64_t>(static_cast<int64_t>(nc * nt) * threshold)) {
    if (nc >= 2) {
      --nc;
    } else {
      break;
    }
  }
  while (bytes < static_cast<uint64_t>(static_cast<int64_t>(nc * nt) * threshold)) {
    if (nt % 128 == 0) {
      nt /= 2;
    } else {
      break;
    }
  }
  if (choice.protocol == kProtoSimple) {
    if (choice.algorithm == kAlgoRing) nt += kWarpSize;      // an extra warp for synchronisation
    if (choice.algorithm == kAlgoTree) nt += 4 * kWarpSize;  // split thread model
  }
  nt = nt / kWarpSize < 3 ? 3 * kWarpSize : nt;
  if (choice.algorithm == kAlgoTree || choice.algorithm == kAlgoPat) nt = kMaxNthreads;
  choice.channels = nc;
  choice.threads = nt;

  choice.algbw_gbps = gigabytes_per_second(bytes, static_cast<double>(choice.time_us) * 1e-6);
  choice.busbw_gbps = choice.algbw_gbps * coll::bus_factor(collective_op(func), context.n_ranks);
  return choice;
}

}  // namespace linkscope::topo
