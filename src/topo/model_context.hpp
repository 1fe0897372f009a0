#pragma once
// What NCCL's path rewrites and P2P/GDR checks share: the graph, the environment, where INFO lines go, and
// NCCL's once-per-process resolution of NCCL_P2P_LEVEL / NCCL_NET_GDR_LEVEL (whose echo is printed once).
#include <string>
#include <utility>
#include <vector>

#include "topo/env_params.hpp"
#include "topo/topo_types.hpp"

namespace linkscope::topo {

struct ModelContext {
  TopoSystem& system;
  const NcclParams& params;
  std::vector<std::string>* info = nullptr;  // nullptr: checks run silently (queries after the build)
  bool p2p_level_resolved = false;
  bool gdr_level_resolved = false;

  void emit(std::string line) const {
    if (info != nullptr) info->push_back(std::move(line));
  }
};

}  // namespace linkscope::topo
