#include "topo/tuning_model.hpp"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "topo/algo_proto_list.hpp"
#include "topo/tuning_constants.hpp"

namespace linkscope::topo {

namespace {

using namespace tuning;

// getNthreads: a positive NCCL_NTHREADS / NCCL_LL128_NTHREADS must be a multiple of a warp within [min, max].
int thread_count(const char* name, int env, int min, int max, int fallback, std::vector<std::string>& messages) {
  if (env <= 0) return fallback;
  if (env % kWarpSize != 0) {
    messages.push_back(fmt::format("Invalid {} {} (must be a multiple of {})", name, env, kWarpSize));
    return max;
  }
  if (env > max) {
    messages.push_back(fmt::format("Invalid {} {} (maximum {}).", name, env, max));
    return max;
  }
  if (env < min) {
    messages.push_back(fmt::format("Invalid {} {} (minimum {}).", name, env, min));
    return min;
  }
  return env;
}

void set_max_threads(const TuningInputs& in, const CommParams& params, TuningModel& model) {
  const TuningGraph& ring = in.graphs[kAlgoRing];
  // Rings no faster than one PCIe Gen3 x16 link get 256 Simple threads.
  const int simple_default = ring.bw_intra * static_cast<float>(ring.n_channels) <= kPciBw ? 256 : kSimpleMaxNthreads;
  const auto nthreads = static_cast<int>(params.nthreads.value);
  auto& t = model.max_threads;
  auto& messages = model.nthreads_messages;
  t[kAlgoRing][kProtoSimple] =
      thread_count("NCCL_NTHREADS", nthreads, 2 * kWarpSize, kSimpleMaxNthreads, simple_default, messages);
  t[kAlgoTree][kProtoSimple] =
      thread_count("NCCL_NTHREADS", nthreads, 2 * kWarpSize, kSimpleMaxNthreads, kSimpleMaxNthreads, messages);
  for (const int a : {kAlgoCollnetDirect, kAlgoCollnetChain, kAlgoNvls, kAlgoNvlsTree}) {
    t[a][kProtoSimple] = kMaxNthreads;
  }
  t[kAlgoRing][kProtoLl] = t[kAlgoTree][kProtoLl] =
      thread_count("NCCL_NTHREADS", nthreads, 2 * kWarpSize, kLlMaxNthreads, kLlMaxNthreads, messages);
  t[kAlgoRing][kProtoLl128] = t[kAlgoTree][kProtoLl128] =
      thread_count("NCCL_LL128_NTHREADS", static_cast<int>(params.ll128_nthreads.value), kLl128MaxNthreads / 4,
                   kLl128MaxNthreads, kLl128MaxNthreads, model.ll128_nthreads_messages);
}

// ncclPatEnable: PAT needs SM60 and, by default, one GPU per node.
int pat_enable(const TuningInputs& in, const CommParams& params, TuningModel& model) {
  model.pat_enable_read = true;
  const auto enable = static_cast<int>(params.pat_enable.value);
  if (in.min_comp_cap < 60) return 0;
  if (enable != 2) return enable;
  if (in.n_nodes != in.n_ranks) return 0;
  return 1;  // the host network device (no offload) is all an offline model can assume
}

int generation_index(int min_comp_cap) {
  if (min_comp_cap >= 100) return kBlackwell;
  if (min_comp_cap >= 90) return kHopper;
  if (min_comp_cap >= 80) return kAmpere;
  return kVolta;
}

// Latency and bandwidth of every collective, algorithm and protocol NCCL models (types as in tuning.cc: float
// tables, double constants).
void compute_tables(const TuningInputs& in, const CommParams& params, TuningModel& model) {
  const int n_nodes = in.n_nodes;
  const int n_ranks = in.n_ranks;
  const int cc = generation_index(in.min_comp_cap);
  const int scale = n_nodes <= 2 ? n_nodes - 1 : 2;
  // LL: on one node the GPU type decides; across nodes the CPU type.
  const int ll_index = n_nodes == 1 ? cc : (in.cpu_vendor == kVendorAmd ? 1 : 0);
  const double ll_max_bw = kLlMaxBws[ll_index][scale];
  const double per_ch_max_tree_bw = kPerChMaxTreeBws[cc][scale];
  const double per_ch_max_ring_ll128_bw = cc == kBlackwell && in.version.has(NcclChange::kBlackwellRingLl128Bw40)
                                              ? kPerChMaxRingLl128BwBlackwell2_29_7
                                              : kPerChMaxRingLl128Bws[cc][scale];
  const double per_ch_max_tree_ll128_bw = kPerChMaxTreeLl128Bws[cc][scale];
  double hw_latencies[kHwCount][kAlgoCount][kProtoCount];
  std::copy(&kHwLatencies[0][0][0], &kHwLatencies[0][0][0] + kHwCount * kAlgoCount * kProtoCount,
            &hw_latencies[0][0][0]);
  // "De-penalize Tree/Simple latency on Power systems to favor Tree than Ring"
  if (in.cpu_arch == kArchPower) {
    hw_latencies[kHwPci][kAlgoTree][kProtoSimple] = hw_latencies[kHwPci][kAlgoRing][kProtoSimple];
  }
  const float ppn = static_cast<float>(n_ranks) / static_cast<float>(n_nodes);

  int intra_hw[kAlgoCount];
  int hw[kAlgoCount];
  for (int a = 0; a < kAlgoCount; ++a) {
    intra_hw[a] = in.graphs[a].type_intra == kLinkNvl ? kHwNvlink : kHwPci;
    hw[a] = n_nodes == 1 ? intra_hw[a] : kHwNet;
  }
  const long log2_nodes = log2_down(static_cast<uint64_t>(n_nodes));

  for (int coll = 0; coll < kFuncCount; ++coll) {
    const bool gather_scatter = coll == kFuncReduceScatter || coll == kFuncAllGather;
    const int nsteps = coll == kFuncAllReduce ? 2 * (n_ranks - 1) : gather_scatter ? n_ranks - 1 : n_ranks;
    for (int a = 0; a < kAlgoCount; ++a) {
      if ((coll == kFuncBroadcast || coll == kFuncReduce) && a != kAlgoRing) continue;
      if (gather_scatter && a != kAlgoPat && a != kAlgoRing && a != kAlgoNvls && a != kAlgoCollnetDirect) continue;
      if (coll == kFuncAllReduce && a == kAlgoPat) continue;
      const TuningGraph& graph = in.graphs[a];
      for (int p = 0; p < kProtoCount; ++p) {
        if ((a == kAlgoNvls || a == kAlgoNvlsTree) && p != kProtoSimple) continue;
        if (gather_scatter && a == kAlgoPat && (p != kProtoSimple || pat_enable(in, params, model) == 0)) continue;
        const bool collnet = a == kAlgoCollnetDirect || a == kAlgoCollnetChain;
        float bw = n_nodes <= 2 || collnet ? graph.bw_intra : graph.bw_inter;
        // NVLS needs at least 2 channels; with NVLS off its graph has none (NCCL skips it here, latency included).
        if ((a == kAlgoNvls || a == kAlgoNvlsTree) && graph.n_channels < 2) continue;
        float bus_bw = static_cast<float>(graph.n_channels) * bw;

        // NCCL's model refinements, in its order.
        if (a == kAlgoRing && p == kProtoLl) bus_bw = static_cast<float>(std::min(ll_max_bw, bus_bw * .5));
        if (a == kAlgoRing && p == kProtoLl128) {
          bus_bw = static_cast<float>(
              std::min(bus_bw * (0.92 /*120.0/128.0*/), graph.n_channels * per_ch_max_ring_ll128_bw));
        }
        if (a == kAlgoTree && coll == kFuncAllReduce) {
          bus_bw = static_cast<float>(std::min(bus_bw * .92, graph.n_channels * per_ch_max_tree_bw));
        }
        if (a == kAlgoTree && p == kProtoLl) bus_bw = static_cast<float>(std::min(bus_bw * 1.0 / 3.8, ll_max_bw));
        if (a == kAlgoTree && p == kProtoLl128) {
          bus_bw = static_cast<float>(std::min(bus_bw * (n_nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0),
                                               graph.n_channels * per_ch_max_tree_ll128_bw));
        }
        if (a == kAlgoTree && in.max_tree_pattern == kPatternTree) bus_bw *= .85;
        if (a == kAlgoPat) bus_bw *= .75;
        if (collnet && p != kProtoSimple) bus_bw = 0;  // not used
        if (a == kAlgoCollnetDirect && p == kProtoSimple) {
          if (gather_scatter) {
            bus_bw = ppn * std::min(graph.bw_intra, graph.bw_inter * 0.9f);
          } else {
            // CollNet Direct needs a NIC per GPU for full speed (with no CollNet graph: 0 / 0, NaN; disabled below).
            float factor = static_cast<float>(ppn / (1.0 * graph.n_channels));
            factor -= (factor - 1) / 2;
            bus_bw /= factor;
            if (in.min_comp_cap >= 90) bus_bw *= .85;
          }
        }
        // (NVLS / CollNet Direct AllGather and ReduceScatter across nodes need a NIC per GPU: one node here.)

        // Bus bandwidth to algorithm bandwidth.
        if (!(a != kAlgoRing && gather_scatter)) {
          float ratio = 1.0f;
          if (a == kAlgoRing || a == kAlgoNvls || a == kAlgoNvlsTree) {
            ratio *= (1.0 * n_ranks) / nsteps;
          } else {
            ratio *= .5;
          }
          bus_bw *= ratio;
        }
        model.bandwidth_gbps[coll][a][p] = bus_bw;

        float& latency = model.latency_us[coll][a][p];
        latency = static_cast<float>(kBaseLatencies[a][p]);
        float intra_lat = static_cast<float>(hw_latencies[intra_hw[a]][a][p]);
        // With one rank per node latencies are fully exposed: the tree's network latency.
        float inter_lat =
            static_cast<float>(ppn == 1 ? hw_latencies[kHwNet][kAlgoTree][p] : hw_latencies[kHwNet][a][p]);
        inter_lat += graph.latency_inter;
        if (p == kProtoSimple) inter_lat += graph.latency_inter;  // the flush

        if (a == kAlgoRing) {
          float lat = static_cast<float>(hw_latencies[hw[a]][a][p]);
          if (coll == kFuncReduce || coll == kFuncBroadcast) {
            if (graph.same_channels) {
              latency += lat;
            } else {
              if (p == kProtoSimple) lat = static_cast<float>(hw_latencies[hw[a]][kAlgoTree][p]);
              latency += static_cast<float>(nsteps) * lat;
            }
          } else {
            const float net_overhead = 0.0f;  // network post overhead: several nodes only
            intra_lat = std::max(intra_lat, net_overhead);
            const int inter_steps = n_nodes == 1 ? 0 : coll == kFuncAllReduce ? 2 * (n_nodes - 1) : n_nodes - 1;
            latency += static_cast<float>(nsteps - inter_steps) * intra_lat +
                       static_cast<float>(inter_steps) * inter_lat;
          }
        } else if (a == kAlgoTree) {
          if (coll == kFuncAllReduce) {
            latency += 2 * (static_cast<float>(n_ranks / n_nodes - 1) * intra_lat +
                            static_cast<float>(log2_nodes) * inter_lat);
          }
        } else if (a == kAlgoCollnetDirect) {
          // 0.4 us arity serialization latency per peer
          latency += 2 * (std::min(1, n_ranks / n_nodes - 1) * intra_lat + (n_ranks / n_nodes - 1) * 0.4) + inter_lat;
        } else if (a == kAlgoCollnetChain) {
          latency += 2 * static_cast<float>(n_ranks / n_nodes - 1) * intra_lat + inter_lat;
        } else if (a == kAlgoPat) {
          if (gather_scatter) latency += log2_nodes * (inter_lat / 3.5) + n_ranks * 2.8;
        }
      }
    }
  }
}

// Protocol and algorithm enables: defaults (LL128 = 2, "where safe"), NCCL_PROTO / NCCL_ALGO, then NCCL's own
// rules; a disabled combination gets bandwidth 0.
void apply_enables(const TuningInputs& in, const CommParams& params, TuningModel& model) {
  std::vector<int> proto(kFuncCount * kProtoCount);
  std::vector<int> algo(kFuncCount * kAlgoCount, 1);
  for (int f = 0; f < kFuncCount; ++f) {
    for (int p = 0; p < kProtoCount; ++p) proto[f * kProtoCount + p] = p == kProtoLl128 ? 2 : 1;
  }
  const std::vector<const char*> funcs = {func_name(0), func_name(1), func_name(2), func_name(3), func_name(4)};
  std::vector<const char*> protos;
  for (int p = 0; p < kProtoCount; ++p) protos.push_back(proto_name(p));
  std::vector<const char*> algos;
  for (int a = 0; a < kAlgoCount; ++a) algos.push_back(algo_name(a));
  if (params.proto) {
    model.error = parse_enable_list(*params.proto, funcs, protos, proto);
    if (!model.error.empty()) {
      model.error_variable = "NCCL_PROTO";
      return;
    }
  }
  if (params.algo) {
    model.error = parse_enable_list(*params.algo, funcs, algos, algo);
    if (!model.error.empty()) {
      model.error_variable = "NCCL_ALGO";
      return;
    }
  }
  model.show_enable_matrix = params.proto.has_value() || params.algo.has_value();
  for (int f = 0; f < kFuncCount; ++f) {
    for (int p = 0; p < kProtoCount; ++p) {
      model.proto_enable[f][p] = proto[f * kProtoCount + p];
    }
    for (int a = 0; a < kAlgoCount; ++a) {
      model.algo_enable[f][a] = algo[f * kAlgoCount + a];
    }
  }

  for (int f = 0; f < kFuncCount; ++f) {
    for (int a = 0; a < kAlgoCount; ++a) {
      bool disable = in.n_nodes == 1 && a == kAlgoNvlsTree;              // NVLS Tree needs several nodes
      if (a == kAlgoCollnetDirect || a == kAlgoCollnetChain || (a == kAlgoNvls && in.n_nodes > 1)) {
        disable = true;                                                 // CollNet is off
      }
      if (in.nvs_count == 0 && a == kAlgoCollnetDirect) disable = true;  // CollNet Direct needs an NVSwitch
      if (disable) algo[f * kAlgoCount + a] = 0;
    }
  }

  const auto ll128_c2c = [&] {
    model.ll128_c2c_read = true;
    return params.ll128_c2c.value != 0;
  };
  for (int c = 0; c < kFuncCount; ++c) {
    for (int a = 0; a < kAlgoCount; ++a) {
      const TuningGraph& graph = in.graphs[a];
      for (int p = 0; p < kProtoCount; ++p) {
        int enable = proto[c * kProtoCount + p];
        if (enable == 2 && p == kProtoLl128) {
          enable = 1;
          if (ll128_c2c() && in.min_comp_cap >= 90) {
            // Hopper/Blackwell: LL128 up to P2C and PXN paths.
            enable &= graph.type_inter <= kPathPxn ? 1 : 0;
          } else {
            // Up to PXB only: PXN may wrap PXB or P2C links.
            enable &= graph.type_inter <= kPathPxb ? 1 : 0;
            if (params.ll128_c2c.value == 0 && in.min_comp_cap >= 90) {
              model.ll128_messages.push_back("Disabling LL128 over all PxN connections (PXB and C2C). This ensures "
                                             "that no C2C link will be used by LL128.");
            }
          }
          enable &= graph.type_intra <= kPathNvb ? 1 : 0;
          enable &= in.min_comp_cap == in.max_comp_cap ? 1 : 0;
          // (NCCL built with CUDA 11.8 also disables it for 2-rank sm90 ring AllReduce; assumed not the case.)
          enable &= in.min_comp_cap < 70 ? 0 : 1;
        }
        auto& bw = model.bandwidth_gbps[c][a][p];
        if (enable == 0) bw = 0;
        if (algo[c * kAlgoCount + a] == 0) bw = 0;
      }
    }
  }
}

// Per-thread work before NCCL adds threads or channels; NCCL_THREAD_THRESHOLDS sets Tree and Ring (sscanf "%ld").
void set_thread_thresholds(const TuningInputs& in, const CommParams& params, TuningModel& model) {
  auto& t = model.thread_thresholds;
  for (auto& per_proto : t) {
    per_proto[kProtoLl] = kLlThreadThreshold;
    per_proto[kProtoLl128] = kLl128ThreadThreshold;
    per_proto[kProtoSimple] = kSimpleThreadThreshold;
  }
  t[kAlgoRing][kProtoLl] *= in.n_ranks;
  t[kAlgoCollnetDirect][kProtoSimple] = 512;
  t[kAlgoCollnetChain][kProtoSimple] = 512;
  if (!params.thread_thresholds) return;
  const char* cursor = params.thread_thresholds->c_str();
  for (int i = 0; i < 2 * kProtoCount; ++i) {
    char* end = nullptr;
    const long value = std::strtol(cursor, &end, 10);
    if (end == cursor) break;  // sscanf stops at the first field that does not match
    cursor = end;
    if (value >= 0) t[i / kProtoCount][i % kProtoCount] = value;
  }
}

}  // namespace

TuningModel tune_model(const TuningInputs& inputs, const CommParams& params) {
  TuningModel model;
  set_max_threads(inputs, params, model);
  if (inputs.n_ranks <= 1) return model;
  compute_tables(inputs, params, model);
  apply_enables(inputs, params, model);
  if (!model.error.empty()) return model;
  set_thread_thresholds(inputs, params, model);
  model.computed = true;
  return model;
}

}  // namespace linkscope::topo
