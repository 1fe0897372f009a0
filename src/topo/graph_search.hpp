#pragma once
// NCCL's channel search for one node (graph/search.cc ncclTopoCompute, intra-node part): the rings
// (pattern 4) and trees (pattern 1, relaxed to 3 on sm90+) it finds, with NCCL's speed tables, relaxation order,
// effort counters (time budgets counted in search steps, so the result does not depend on wall time), channel
// duplication and fallback. NVLS and CollNet graphs are not searched (both are off here).
#include <cstdint>
#include <string>
#include <vector>

#include "topo/comm_constants.hpp"
#include "topo/nccl_versions.hpp"
#include "topo/search_links.hpp"
#include "topo/topo_types.hpp"

namespace linkscope::topo {

// One searched graph as NCCL prints it ("Pattern 4, crossNic 0, nChannels 12, bw 30.000000/30.000000, type
// NVL/PIX, sameChannels 1") with each channel's GPUs.
struct GraphSearchResult {
  int id = 0;             // 0 ring, 1 tree (NCCL's graph ids)
  int pattern = 0;        // kPatternRing, kPatternBalancedTree, kPatternTree ...
  int cross_nic = 0;
  int n_channels = 0;
  float bw_intra = 0.0f;  // GB/s per channel within the node
  float bw_inter = 0.0f;  // GB/s per channel through the network (= bw_intra on one node)
  int type_intra = kPathLoc;  // worst GPU-to-GPU path type the channels may use
  int type_inter = kPathPix;
  int same_channels = 0;  // 1: every channel is the same GPU order
  int n_hops = 0;         // NCCL's tie-break: total path hops of the channels found
  bool fell_back = false; // nothing found: NCCL's "simple order" (bw 0.1, SYS/SYS, one channel)
  std::string error;      // NCCL's WARN where it stops instead (2.29+: a fallback on a node without NETs)
  // channels[c] = the GPUs of channel c in order, as ranks (NCCL graph->intra).
  std::vector<std::vector<int>> channels;
  // Search effort (not printed by NCCL): ncclTopoSearchRecGpu calls over all the searches for this graph, the
  // steps NCCL's budgets count.
  int64_t steps = 0;
};

// What NCCL asks for: the ring first (1..32 channels), then the balanced tree with exactly the ring's channel count
// (init.cc). NCCL never asks for the split tree (pattern 2), though the search handles it.
struct GraphRequest {
  int id = 0;
  int pattern = kPatternRing;
  int min_channels = 1;
  int max_channels = kMaxChannels / 2;
};

// The facts about the node the search reads.
struct SearchSystemFacts {
  std::vector<int> gpu_ranks;  // per GPU index
  std::vector<int> gpu_sm;     // per GPU index (cudaCompCap)
  int device_count = 0;  // physical GPUs: DEV nodes since NCCL 2.30, else GPU nodes
  int net_count = 0;
  int nvs_count = 0;
  int cpu_arch = -1;           // CPU node 0 (ncclTopoCpuType)
  int cpu_vendor = -1;
  float max_bw = 0.0f;         // ncclTopoSearchInit
  float total_bw = 0.0f;
  int64_t cross_nic_param = 2; // NCCL_CROSS_NIC
  ModelledVersion version;     // speed tables and the fallback graph differ between versions
};

SearchSystemFacts search_facts(const TopoSystem& system, float max_bw, float total_bw, int64_t cross_nic_param,
                               const ModelledVersion& version);

// ncclTopoCompute for one node (system->inter == 0). Charges and gives back bandwidth on `links`.
GraphSearchResult compute_graph(SearchLinks& links, const SearchSystemFacts& facts, const GraphRequest& request);

}  // namespace linkscope::topo
