#pragma once
// maxBw and totalBw of NCCL's "=== System : maxBw ... totalBw ... ===" header (search.cc ncclTopoSearchInit).
#include "topo/topo_types.hpp"

namespace linkscope::topo {

struct SystemBandwidth {
  float max_bw = 0.0f;    // best final path bw from a GPU to another GPU (to a NET when inter-node)
  float total_bw = 0.0f;  // per GPU the larger of its last PCI link and the sum of its NVLinks; max over GPUs
};

// `inter_node` is 0 offline on one host (NCCL: the communicator spans a single node).
SystemBandwidth system_bandwidth(const TopoSystem& system, bool inter_node = false);

}  // namespace linkscope::topo
