#pragma once
// NCCL 2.28.9's breadth-first path search (paths.cc ncclTopoSetPaths) and the path helpers its rewrites use.
#include <vector>

#include "topo/topo_types.hpp"

namespace linkscope::topo {

// Removes every path array, then runs the BFS from every CPU, GPU, NET and NVS node (index order in each type).
// `nvb_disable` (NCCL_NVB_DISABLE != 0) forbids relaying through a GPU. Throws ModelError where NCCL fails
// (a one-sided GPU-to-GPU NVLink or <pcilink>: no reverse link).
void compute_bfs_paths(TopoSystem& system, bool nvb_disable);

// One BFS: sets every node's path towards `base` (stored on each node in its array for base's type).
void set_paths(TopoSystem& system, NodeRef base, bool nvb_disable);

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

// Rank of the GPU a PXN path relays through (the first hop remote that is not the NVSwitch).
int pxn_intermediate_rank(const TopoSystem& system, int gpu_index, int net_index);

}  // namespace linkscope::topo
