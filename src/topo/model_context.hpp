#pragma once
// What NCCL's path rewrites and P2P/GDR checks share: the graph, the environment, where INFO lines go, and
// NCCL's once-per-process resolution of NCCL_P2P_LEVEL / NCCL_NET_GDR_LEVEL (whose echo is printed once).
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "topo/env_params.hpp"
#include "topo/nccl_versions.hpp"
#include "topo/topo_types.hpp"

namespace linkscope::topo {

struct ModelContext {
  // The node set is final once the graph is built (only paths change), so NCCL's lookups by rank and by NET id
  // (the first node that matches) are indexed once.
  ModelContext(TopoSystem& graph, const NcclParams& nccl_params, const ModelledVersion& nccl_version,
               std::vector<std::string>* info_lines)
      : system(graph), params(nccl_params), version(nccl_version), info(info_lines) {
    for (int g = graph.count(kGpu) - 1; g >= 0; --g) gpu_of_rank[graph.nodes[kGpu][g].rank] = g;
    for (int n = graph.count(kNet) - 1; n >= 0; --n) net_of_id[graph.nodes[kNet][n].id] = n;
  }

  TopoSystem& system;
  const NcclParams& params;
  const ModelledVersion& version;
  std::vector<std::string>* info = nullptr;  // nullptr: checks run silently (queries after the build)
  bool p2p_level_resolved = false;
  bool gdr_level_resolved = false;
  std::unordered_map<int, int> gpu_of_rank;
  std::unordered_map<int64_t, int> net_of_id;

  // First GPU with this rank / first NET with this id, -1 if none.
  int gpu_index(int rank) const {
    const auto it = gpu_of_rank.find(rank);
    return it == gpu_of_rank.end() ? -1 : it->second;
  }
  int net_index(int64_t id) const {
    const auto it = net_of_id.find(id);
    return it == net_of_id.end() ? -1 : it->second;
  }
  void emit(std::string line) const {
    if (info != nullptr) info->push_back(std::move(line));
  }
};

}  // namespace linkscope::topo
