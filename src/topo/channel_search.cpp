#include "topo/channel_search.hpp"

#include <algorithm>

namespace linkscope::topo {

namespace {

// How NCCL orders the next GPU to try (ncclGpuScore / cmpScore). On one node the network terms are all zero, so
// the order is: higher path bandwidth (truncated to an int), then fewer hops, then the GPU right after the current
// one in index order first.
struct GpuScore {
  int gpu = 0;
  int start_index = 0;  // distance after the current GPU in index order
  int hops = 0;
  int bw = 0;
};

bool scores_before(const GpuScore& a, const GpuScore& b) {
  if (a.bw != b.bw) return a.bw > b.bw;
  if (a.hops != b.hops) return a.hops < b.hops;
  return a.start_index < b.start_index;
}

bool is_tree_pattern(int pattern) {
  return pattern == kPatternBalancedTree || pattern == kPatternTree || pattern == kPatternSplitTree;
}

}  // namespace

ChannelSearch::ChannelSearch(SearchLinks& links, const SearchSystemFacts& facts, WorkGraph& graph, WorkGraph& best,
                             int& time)
    : links_(links),
      facts_(facts),
      graph_(graph),
      best_(best),
      time_(time),
      gpus_(links.gpu_count()),
      tree_pattern_(is_tree_pattern(graph.pattern)),
      used_(static_cast<std::size_t>(gpus_), 0),
      candidates_(static_cast<std::size_t>(kMaxChannels * gpus_)) {}

int64_t ChannelSearch::run() {
  search_channel();
  return steps_;
}

int ChannelSearch::gpu_of_rank(int rank) const {
  for (int g = 0; g < gpus_; ++g) {
    if (facts_.gpu_ranks[g] == rank) return g;
  }
  return -1;
}

// ncclTopoReplayGetGpu: the GPU at position step + 1 of the previous channel.
int ChannelSearch::replay_gpu(int step) const {
  const int rank = graph_.intra[(graph_.n_channels - 1) * gpus_ + step + 1];
  return gpu_of_rank(rank);
}

// ncclTopoSearchRec, one node: the first channel starts with the PCI order (GPU 0, 1, 2 ...); later channels
// first replay the previous one; then, unless every channel must be the same, every GPU is tried as the start.
void ChannelSearch::search_channel() {
  if (graph_.n_channels == 0) {
    try_gpu(0, Order::kPciOrder, -1, 0);
  } else {
    const int first = replay_gpu(-1);
    if (first >= 0) try_gpu(0, Order::kReplay, -1, first);
  }
  if (graph_.same_channels == 0 || graph_.n_channels == 0) {
    for (int g = 0; g < gpus_; ++g) try_gpu(0, Order::kNormal, -1, g);
  }
}

// ncclTopoSearchTryGpu: go to `gpu` (charging the path from `from` unless this is the first GPU), mark it used by
// this channel, continue, then undo.
void ChannelSearch::try_gpu(int step, Order order, int from, int gpu) {
  if (from >= 0 && !follow(from, gpu, 1.0f)) return;
  const uint64_t flag = uint64_t{1} << graph_.n_channels;
  used_[gpu] ^= flag;
  visit(gpu, step, order);
  used_[gpu] ^= flag;
  if (from >= 0) follow(from, gpu, -1.0f);
}

// ncclTopoSearchRecGpu, one node (no NIC to go back to): every call costs one step of the budget.
void ChannelSearch::visit(int gpu, int step, Order order) {
  if (time_ <= 0) return;
  --time_;
  ++steps_;
  if (step == gpus_) {
    complete_channel();
    return;
  }
  graph_.intra[graph_.n_channels * gpus_ + step] = facts_.gpu_ranks[gpu];
  if (step < gpus_ - 1) {
    std::vector<int>& next = candidates_[graph_.n_channels * gpus_ + step];
    if (order == Order::kPciOrder) {
      next.assign(1, step + 1);
    } else if (order == Order::kReplay) {
      next.assign(1, replay_gpu(step));
    } else {
      next_gpus(gpu, step);  // fills `next`
    }
    for (const int candidate : next) {
      if (candidate >= 0) try_gpu(step + 1, order, gpu, candidate);
    }
  } else if (graph_.pattern == kPatternRing) {
    // The ring closes back to its first GPU.
    const int first = gpu_of_rank(graph_.intra[graph_.n_channels * gpus_]);
    if (first >= 0 && follow(gpu, first, 1.0f)) {
      visit(first, step + 1, order);
      follow(gpu, first, -1.0f);
    }
  } else {
    visit(gpu, gpus_, order);
  }
}

// A channel is complete: keep it if it beats the best so far (a perfect count stops the search), then try to add
// one more channel on top of it.
void ChannelSearch::complete_channel() {
  ++graph_.n_channels;
  if (improves()) {
    best_ = graph_;
    if (graph_.n_channels == graph_.max_channels) time_ = -1;
  }
  if (graph_.n_channels < graph_.max_channels) search_channel();
  --graph_.n_channels;
}

// ncclTopoCompareGraphs (not NVLS): enough channels, then more total bandwidth, then fewer hops.
bool ChannelSearch::improves() const {
  if (graph_.n_channels < graph_.min_channels) return false;
  const float mine = static_cast<float>(graph_.n_channels) * graph_.bw_intra;
  const float theirs = static_cast<float>(best_.n_channels) * best_.bw_intra;
  if (mine > theirs) return true;
  if (mine < theirs) return false;
  return graph_.pattern == best_.pattern && graph_.cross_nic == best_.cross_nic && graph_.n_hops < best_.n_hops;
}

// ncclTopoFollowPath between two GPUs: a path worse than the allowed type (for trees, in either direction) is not
// taken; otherwise every hop must have the channel's bandwidth left, or nothing is charged.
bool ChannelSearch::follow(int from, int to, float mult) {
  const SearchPath& path = links_.gpu_path(from, to);
  if (path.type >= kPathDis) return false;
  if (mult == 1.0f && path.type > graph_.type_intra) return false;
  if (mult == 1.0f && tree_pattern_ && links_.gpu_path(to, from).type > graph_.type_intra) return false;
  const float bw = graph_.bw_intra * mult;
  const int charged = links_.charge(path, path.count, bw);
  if (charged < path.count) {
    links_.charge(path, charged, -bw);
    return false;
  }
  graph_.n_hops = static_cast<int>(static_cast<float>(graph_.n_hops) + mult * static_cast<float>(path.count));
  return true;
}

// ncclTopoSearchNextGpuSort without a network: the GPUs not yet in this channel, best first; on an NVSwitch only
// the ring neighbours in index order (next, then previous; previous first for trees), as NVSwitches prefer few
// peers.
void ChannelSearch::next_gpus(int gpu, int step) {
  std::vector<int>& next = candidates_[graph_.n_channels * gpus_ + step];
  const uint64_t flag = uint64_t{1} << graph_.n_channels;
  std::vector<GpuScore> scores;
  scores.reserve(static_cast<std::size_t>(gpus_));
  for (int i = 1; i < gpus_; ++i) {
    const int g = (gpu + i) % gpus_;
    const SearchPath& path = links_.gpu_path(gpu, g);
    if (path.count == 0) continue;  // no path to that GPU
    if (used_[g] & flag) continue;
    scores.push_back({g, i, path.count, static_cast<int>(path.bw)});
  }
  std::sort(scores.begin(), scores.end(), scores_before);
  next.clear();
  for (const GpuScore& score : scores) next.push_back(score.gpu);
  if (facts_.nvs_count == 0) return;

  const int prev_gpu = (gpu - 1 + gpus_) % gpus_;
  const int next_gpu = (gpu + 1) % gpus_;
  int first[2] = {next_gpu, -1};
  int first_count = 1;
  if (graph_.pattern == kPatternRing) {
    first[0] = next_gpu;
    first[1] = prev_gpu;
    first_count = 2;
  } else if (graph_.pattern == kPatternSplitTree || graph_.pattern == kPatternBalancedTree) {
    first[0] = prev_gpu;
    first[1] = next_gpu;
    first_count = 2;
  }
  if (next_gpu == prev_gpu && first_count == 2) first_count = 1;
  int moved = 0;
  for (int f = 0; f < first_count; ++f) {
    const auto at = std::find(next.begin(), next.end(), first[f]);
    if (at == next.end()) continue;
    std::rotate(next.begin(), at, at + 1);
    ++moved;
  }
  next.resize(static_cast<std::size_t>(moved));
}

}  // namespace linkscope::topo
