#pragma once
// The recursive part of NCCL's channel search for one node (graph/search.cc ncclTopoSearchRec,
// ncclTopoSearchRecGpu, ncclTopoSearchTryGpu, ncclTopoFollowPath, ncclTopoSearchNextGpuSort,
// ncclTopoCompareGraphs): place channel after channel, GPU after GPU, charging each hop's bandwidth, keep the best
// set of channels found, and stop when the step budget (`time`) runs out. Used by graph_search.cpp.
#include <cstdint>
#include <vector>

#include "topo/graph_search.hpp"
#include "topo/search_links.hpp"

namespace linkscope::topo {

// NCCL's struct ncclTopoGraph, as far as a one-node search uses it.
struct WorkGraph {
  int id = 0;
  int pattern = 0;
  int cross_nic = 0;
  int min_channels = 0;
  int max_channels = 0;
  int n_channels = 0;
  float bw_intra = 0.0f;
  float bw_inter = 0.0f;
  int type_intra = kPathLoc;
  int type_inter = kPathLoc;
  int same_channels = 0;
  int n_hops = 0;
  std::vector<int> intra;  // [channel * gpus + step] = rank, kMaxChannels channels
};

class ChannelSearch {
 public:
  // `graph` is the graph being built (NCCL tmpGraph), `best` the best one so far (NCCL's saveGraph); `time` the
  // step budget, set to -1 when a perfect solution (max_channels channels) is found.
  ChannelSearch(SearchLinks& links, const SearchSystemFacts& facts, WorkGraph& graph, WorkGraph& best, int& time);

  // ncclTopoSearchRec on one node: from channel graph.n_channels on. Returns the steps taken.
  int64_t run();

 private:
  enum class Order { kNormal, kPciOrder, kReplay };  // NCCL: 0, FORCED_ORDER_PCI, FORCED_ORDER_REPLAY

  void search_channel();
  void try_gpu(int step, Order order, int from, int gpu);
  void visit(int gpu, int step, Order order);
  bool follow(int from, int to, float mult);
  void complete_channel();
  bool improves() const;
  int replay_gpu(int step) const;
  int gpu_of_rank(int rank) const;
  void next_gpus(int gpu, int step);  // into candidates_ of this channel and step

  SearchLinks& links_;
  const SearchSystemFacts& facts_;
  WorkGraph& graph_;
  WorkGraph& best_;
  int& time_;
  int gpus_;
  bool tree_pattern_;
  std::vector<uint64_t> used_;                 // per GPU: bit c set while channel c goes through it
  std::vector<std::vector<int>> candidates_;   // per step, reused
  int64_t steps_ = 0;
};

}  // namespace linkscope::topo
