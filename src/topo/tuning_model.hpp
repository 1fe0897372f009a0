#pragma once
// NCCL's tuning model of one communicator (graph/tuning.cc ncclTopoTuneModel): per collective, algorithm
// and protocol the latency (us) and bandwidth (GB/s) NCCL predicts, the threads per channel and the per-thread
// work thresholds, with NCCL_PROTO / NCCL_ALGO and the other tuning variables applied. One node, NVLS and CollNet
// off: their columns keep NCCL's values for disabled algorithms (latency as computed, bandwidth 0).
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "topo/nccl_versions.hpp"
#include "topo/comm_constants.hpp"
#include "topo/comm_params.hpp"
#include "topo/topo_types.hpp"

namespace linkscope::topo {

template <typename T>
using PerAlgoProto = std::array<std::array<T, kProtoCount>, kAlgoCount>;
template <typename T>
using PerFuncAlgoProto = std::array<PerAlgoProto<T>, kFuncCount>;

// What the model reads of one algorithm's graph, after NCCL aligned every rank's graphs (ring and tree share the
// smaller channel count).
struct TuningGraph {
  int pattern = 0;
  int n_channels = 0;
  float bw_intra = 0.0f;
  float bw_inter = 0.0f;
  float latency_inter = 0.0f;
  int type_intra = kPathLoc;
  int type_inter = kPathLoc;
  int same_channels = 0;
};

struct TuningInputs {
  int n_ranks = 0;
  int n_nodes = 1;
  int min_comp_cap = 0;  // lowest / highest GPU sm of the communicator
  int max_comp_cap = 0;
  int cpu_arch = -1;     // the communicator's CPU (CPU node 0)
  int cpu_vendor = -1;
  int nvs_count = 0;
  int max_tree_pattern = 0;
  // NCCL's graphs[] per algorithm: tree, ring, collnet direct, collnet chain, nvls, nvls, tree (PAT).
  std::array<TuningGraph, kAlgoCount> graphs{};
  ModelledVersion version;  // per-channel limits differ between versions
};

struct TuningModel {
  bool computed = false;  // NCCL stops after the thread counts when the communicator has one rank
  PerAlgoProto<int> max_threads{};
  PerFuncAlgoProto<float> latency_us{};
  PerFuncAlgoProto<float> bandwidth_gbps{};  // 0: NCCL never picks this combination
  PerAlgoProto<int64_t> thread_thresholds{};
  // The enable matrix as NCCL prints it when NCCL_PROTO or NCCL_ALGO is set (after parsing them, before NCCL's own
  // disables): protocols 1 = on, 0 = off, 2 = LL128 "on where it is safe"; algorithms 1/0.
  std::array<std::array<int, kProtoCount>, kFuncCount> proto_enable{};
  std::array<std::array<int, kAlgoCount>, kFuncCount> algo_enable{};
  bool show_enable_matrix = false;
  bool ll128_c2c_read = false;  // NCCL read NCCL_LL128_C2C (where its echo appears)
  bool pat_enable_read = false; // NCCL read NCCL_PAT_ENABLE
  // INFO lines NCCL prints while tuning: about NCCL_NTHREADS ("Invalid NCCL_NTHREADS 100 (must be a multiple of
  // 32)"), then NCCL_LL128_NTHREADS, and after the enable matrix about LL128 ("Disabling LL128 over all PxN ...").
  std::vector<std::string> nthreads_messages;
  std::vector<std::string> ll128_nthreads_messages;
  std::vector<std::string> ll128_messages;
  // NCCL_PROTO / NCCL_ALGO that NCCL refuses: NCCL's WARN message and the variable; the communicator fails here.
  std::string error;
  std::string error_variable;
};

TuningModel tune_model(const TuningInputs& inputs, const CommParams& params);

}  // namespace linkscope::topo
