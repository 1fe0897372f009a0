#pragma once
// NCCL's breadth-first path search (paths.cc ncclTopoSetPaths) and the path helpers its rewrites use.
#include <string>
#include <vector>

#include "topo/topo_types.hpp"

namespace linkscope::topo {

struct BfsRules {
  bool nvb_disable = false;   // NCCL_NVB_DISABLE != 0: no NVLink relay through a GPU (DEV)
  bool device_nodes = false;  // NCCL 2.30: the graph has DEV nodes and relays through them
  bool type_first = false;    // NCCL 2.30.7: a path is replaced by a better type first (else by fewer hops)
  // For the messages where NCCL fails: its release and its number for the DEV type (7 in 2.30.3, 8 from 2.30.7).
  std::string nccl_version = "2.28.9";
  int nccl_dev_type = 7;
};

// Removes every path array, then runs the BFS from every CPU, DEV, GPU, NET and NVS node (index order in each
// type). Throws ModelError where NCCL fails (a one-sided GPU-to-GPU NVLink or <pcilink>: no reverse link).
void compute_bfs_paths(TopoSystem& system, const BfsRules& rules);

// One BFS: sets every node's path towards `base` (stored on each node in its array for base's type).
void set_paths(TopoSystem& system, NodeRef base, const BfsRules& rules);

// The path from `from` to `to`; a fresh DIS entry when `from` has no array for `to`'s type.
const Path& path_between(const TopoSystem& system, NodeRef from, NodeRef to);
// The same entry for writing, creating the array (all DIS) if needed.
Path& mutable_path(TopoSystem& system, NodeRef from, NodeRef to);

// P2C when one type is C2C and the other PHB, else the worse of the two (paths.cc mergePathType).
int merge_path_type(int a, int b);

// addInterStep: from -> to becomes from -> via followed by via -> to (count added, bw the minimum, type merged;
// PXN whenever `via` is a GPU).
void inter_step(TopoSystem& system, NodeRef via, NodeRef from, NodeRef to);

// ncclGetLocalCpu: the CPU with the fewest (non-zero) hops from the GPU, ties to the lowest index.
int local_cpu(const TopoSystem& system, int gpu_index);

// ncclTopoGetLocal: the targets of `target_type` with the best path from `source` (highest bw, then best type),
// in index order; all of them when every path is (0/0.0/DIS); none when `source` has no array of that type.
std::vector<int> best_targets(const TopoSystem& system, NodeRef source, int target_type);

// ncclTopoDevToRank: the rank of the first GPU with this device number, -1 if none.
int rank_of_device(const TopoSystem& system, int dev);

// Rank of the GPU a PXN path relays through (the first hop remote that is not the NVSwitch).
int pxn_intermediate_rank(const TopoSystem& system, int gpu_index, int net_index);

}  // namespace linkscope::topo
