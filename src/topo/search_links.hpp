#pragma once
// What NCCL's channel search reads and changes (graph/search.cc followPath): every GPU-to-GPU path as the
// graph links it crosses, and the bandwidth still free on each link while channels claim it. The search of one
// communicator uses one SearchLinks for all its graphs, as NCCL uses one graph: what a search gives back is
// rounded (SUB_ROUND), so a later search may see slightly different numbers, exactly as in NCCL.
#include <string>
#include <vector>

#include "topo/topo_types.hpp"

namespace linkscope::topo {

// One hop of a path: the link it crosses and, where NCCL charges the way back too, the reverse link.
struct SearchHop {
  int link = 0;           // index into the bandwidth table
  bool pci = false;       // a PCI link: charged with the Intel overhead when the path has it
  int reverse_link = -1;  // an NVLink into a POWER CPU also charges its reverse link (-1: none)
};

struct SearchPath {
  int type = kPathDis;
  int count = 0;
  float bw = 0.0f;              // the path's bandwidth as the BFS found it (orders candidate GPUs)
  bool intel_overhead = false;  // a PHB path through an Intel x86 CPU: its PCI hops cost bw x 6/5
  int first_hop = 0;            // index of the first hop in the hop table
};

class SearchLinks {
 public:
  // Every final GPU-to-GPU path of `system` (after NCCL's rewrites). `error()` is set instead when a hop is not a
  // link of the graph (a path NCCL's own BFS would not have built).
  explicit SearchLinks(const TopoSystem& system);

  const std::string& error() const { return error_; }
  int gpu_count() const { return gpus_; }
  const SearchPath& gpu_path(int from, int to) const { return paths_[from * gpus_ + to]; }

  // NCCL followPath: charges `bw` (a negative bw gives it back) on the first `max_steps` hops of `path`, hop by hop,
  // and stops at the first hop without enough bandwidth left. Returns the hops charged. (NCCL's 1/8 reverse charge
  // for GPUs below SM80 concerns paths that start at a NIC; every path here starts at a GPU.)
  int charge(const SearchPath& path, int max_steps, float bw);

 private:
  int gpus_ = 0;
  std::vector<SearchPath> paths_;
  std::vector<SearchHop> hops_;
  std::vector<float> bw_;  // bandwidth left per link, in the graph's link order
  std::string error_;
};

}  // namespace linkscope::topo
