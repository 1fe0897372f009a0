#pragma once
// NCCL's P2P decision for a GPU pair (paths.cc ncclTopoCheckP2p), offline: there is no communicator
// and no NVML, so every NVML P2P status counts as OK (what NCCL_IGNORE_DISABLED_P2P=2 does).
#include <string>

#include "topo/model_context.hpp"

namespace linkscope::topo {

struct P2pCheck {
  bool p2p = false;
  bool read = false;            // P2P read: an NVL path between two SM80 GPUs
  int intermediate_rank = -1;   // the relay GPU of a 2-hop path through a GPU (NVB)
  int level = 0;                // the path type limit that applied
  bool level_from_env = false;
  int path_type = kPathDis;     // the path type that was compared
};

// The decision in words, e.g. "path PHB > level PXB (environment)".
std::string p2p_reason(const P2pCheck& check);

// NCCL's default P2P level: PXB, or SYS when CPU node 0 is an AMD x86 and there are at most 2 GPUs.
int default_p2p_level(const TopoSystem& system);

// By rank, as NCCL looks GPUs up (the first GPU with that rank). The first call prints NCCL's env echo.
P2pCheck check_p2p(ModelContext& context, int rank1, int rank2);

}  // namespace linkscope::topo
