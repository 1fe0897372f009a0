#pragma once
// NCCL's GRAPH output for a model (topo.cc ncclTopoPrint, paths.cc printNodePaths), line by line and
// without the "host:pid:tid [dev] NCCL INFO " prefix.
#include <string>
#include <vector>

#include "topo/topology_model.hpp"

namespace linkscope::topo {

// "=== System : maxBw ... ===", every CPU subtree, the 42-'=' line.
std::vector<std::string> nccl_system_block_lines(const TopologyModel& model);
// One line per GPU, then per NET: "GPU/0-8000 :GPU/0-8000 (0/5000.0/LOC) ... " (trailing space kept).
std::vector<std::string> nccl_path_lines(const TopologyModel& model);
// linkscope's decision lines: "P2P GPU/0-8000 -> GPU/0-9000 : path NVL count 1 bw 240.0 : p2p 1 read 1" and
// "GDR GPU/0-8000 -> NET/0-0 : path SYS count 5 bw 0.3 : read 0 write 0".
std::vector<std::string> decision_lines(const TopologyModel& model);

}  // namespace linkscope::topo
