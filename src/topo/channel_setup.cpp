#include "topo/channel_setup.hpp"

#include <algorithm>
#include <climits>

#include <fmt/format.h>

#include "topo/nccl_numbers.hpp"

namespace linkscope::topo {

namespace {

constexpr int kConfigUndefInt = INT_MIN;  // nccl.h NCCL_CONFIG_UNDEF_INT

// init.cc parseCommConfig (defaults minCTAs 1, maxCTAs MAXCHANNELS) then envConfigOverride (NCCL_MIN_CTAS,
// NCCL_MAX_CTAS when > 0), then the caps.
void apply_cta_config(const CommParams& params, ChannelSetup& setup) {
  const auto min_env = static_cast<int>(params.min_ctas.value);
  const auto max_env = static_cast<int>(params.max_ctas.value);
  if (min_env != kConfigUndefInt && min_env > 0) setup.min_ctas = min_env;
  if (max_env != kConfigUndefInt && max_env > 0) setup.max_ctas = max_env;
  setup.min_ctas = std::min(setup.min_ctas, kMaxChannels);
  setup.max_ctas = std::min(setup.max_ctas, kMaxChannels);
  if (setup.min_ctas > setup.max_ctas) setup.min_ctas = setup.max_ctas;
}

int position_of(const std::vector<int>& ranks, int rank) {
  const auto at = std::find(ranks.begin(), ranks.end(), rank);
  return at == ranks.end() ? -1 : static_cast<int>(at - ranks.begin());
}

// ncclTopoPreset + connectRings + connectTrees on one node: inside the node a channel is the graph's GPU order;
// the ring closes from its last rank back to its first; the tree is a chain down the order.
void connect_search_channels(const GraphSearchResult& ring, const GraphSearchResult& tree, int nranks,
                             ChannelSetup& setup) {
  const int n = setup.search_channels;
  const int child0 = tree.pattern == kPatternTree ? 0 : 1;
  const int child1 = tree.pattern == kPatternSplitTree ? 1 : 0;
  for (int c = 0; c < n; ++c) {
    const std::vector<int>& ring_order = ring.channels[c];
    const std::vector<int>& tree_order = tree.channels[c];
    std::vector<int> prev(static_cast<std::size_t>(nranks), -1);
    std::vector<int> next(static_cast<std::size_t>(nranks), -1);
    std::vector<TreeNeighbours> trees(static_cast<std::size_t>(nranks));
    const int last = nranks - 1;
    for (int r = 0; r < nranks; ++r) {
      const int i = position_of(ring_order, r);
      if (i >= 0) {
        prev[r] = i == 0 ? -1 : ring_order[i - 1];
        next[r] = i == last ? -1 : ring_order[i + 1];
      }
      const int t = position_of(tree_order, r);
      if (t >= 0) {
        trees[r].up = t == 0 ? -1 : tree_order[t - 1];
        trees[r].down[0] = t == last ? -1 : tree_order[t + 1];
      }
    }
    // connectRings with one node: the ring's last rank sends to its first.
    prev[ring_order.front()] = ring_order.back();
    next[ring_order.back()] = ring_order.front();
    setup.ring_prev.push_back(std::move(prev));
    setup.ring_next.push_back(std::move(next));
    setup.search_trees.push_back(trees);
    setup.trees.push_back(std::move(trees));
    const auto at = [&tree_order](int index) {
      return index < static_cast<int>(tree_order.size()) ? tree_order[index] : -1;
    };
    setup.tree_heads.push_back({at(0), at(child0), at(child1)});
  }
  // Each search channel becomes two (ncclTopoPreset copies the trees, ncclTopoPostset the rings).
  for (int c = 0; c < n; ++c) {
    setup.ring_prev.push_back(setup.ring_prev[c]);
    setup.ring_next.push_back(setup.ring_next[c]);
    setup.trees.push_back(setup.trees[c]);
  }
}

// copyChannels (connect.cc): channels start..end-1 repeat channels 0.. in order; returns the new count.
int repeat_channels(ChannelSetup& setup, int start, int end) {
  for (int c = start; c < end; ++c) {
    const auto from = static_cast<std::size_t>(c - start);
    setup.ring_prev.push_back(setup.ring_prev[from]);
    setup.ring_next.push_back(setup.ring_next[from]);
    setup.trees.push_back(setup.trees[from]);
  }
  return std::max(start, end);
}

// ncclBuildRings: each channel's ring as rank 0 walks it.
void build_rings(ChannelSetup& setup, int nranks) {
  for (int c = 0; c < setup.coll_channels; ++c) {
    std::vector<int> order;
    int current = 0;
    for (int i = 0; i < nranks; ++i) {
      order.push_back(current);
      current = setup.ring_next[c][current];
      if (current < 0) break;
    }
    setup.rings.push_back(std::move(order));
  }
}

// ncclTopoGetNchannels between two GPUs of the node: 2 per NVLink's worth of bandwidth, else 2.
int p2p_channels_between(const SearchLinks& links, const std::vector<int>& gpu_sm, int g, int peer) {
  const SearchPath& path = links.gpu_path(peer, g);
  if (path.type != kPathNvl) return 2;
  const float per_link = nvlink_bw_per_link(gpu_sm[g]);
  return 2 * std::max(1, static_cast<int>(path.bw / per_link));
}

void setup_p2p(const SearchLinks& links, const std::vector<int>& gpu_ranks, const std::vector<int>& gpu_sm,
               const CommParams& params, const ModelledVersion& version, ChannelSetup& setup) {
  // computeBuffSizes: one node; all-NVLink nodes use the larger P2P chunk, which must fit NCCL_STEPS times in the
  // Simple buffer.
  const int64_t env[kProtoCount] = {params.ll_buffsize.value, params.ll128_buffsize.value, params.buffsize.value};
  const int64_t defaults[kProtoCount] = {kDefaultLlBuffSize, kDefaultLl128BuffSize, kDefaultBuffSize};
  for (int p = 0; p < kProtoCount; ++p) {
    setup.buff_sizes[p] = static_cast<int>(env[p] != -2 ? env[p] : defaults[p]);
  }
  int max_type = kPathLoc;
  const int gpus = links.gpu_count();
  for (int a = 0; a < gpus; ++a) {
    for (int b = 0; b < gpus; ++b) {
      if (a != b) max_type = std::max(max_type, links.gpu_path(a, b).type);
    }
  }
  setup.all_nvlink = max_type < kPathPix;
  setup.p2p_chunk_size = static_cast<int>(setup.all_nvlink ? params.p2p_nvl_chunksize.value
                                                           : params.p2p_pci_chunksize.value);
  const int simple = setup.buff_sizes[kProtoSimple];
  if (setup.p2p_chunk_size * kNcclSteps > simple) setup.p2p_chunk_size = simple / kNcclSteps;

  // ncclTopoComputeP2pChannels: powers of two, at most the channels NCCL can address.
  int channels = std::min(setup.coll_channels, static_cast<int>(params.max_p2p_nchannels.value));
  channels = std::max(channels, static_cast<int>(params.min_p2p_nchannels.value));
  // Up to 2.28 the minimum over every GPU of the node; since 2.29 over the peers of the rank's own GPU (rank 0 here).
  int per_peer = channels;
  const bool own_gpu_only = version.has(NcclChange::kP2pChannelsFromOwnGpu);
  for (int g = 0; g < gpus; ++g) {
    if (own_gpu_only && gpu_ranks[static_cast<std::size_t>(g)] != 0) continue;
    for (int peer = 0; peer < gpus; ++peer) {
      if (peer != g) per_peer = std::min(per_peer, p2p_channels_between(links, gpu_sm, g, peer));
    }
  }
  setup.p2p_channels_per_peer = static_cast<int>(pow2_up(per_peer));
  setup.p2p_channels = static_cast<int>(std::min(pow2_up(channels), pow2_down(kMaxChannels)));
  setup.p2p_channels_per_peer = std::min(setup.p2p_channels_per_peer, setup.p2p_channels);
}

}  // namespace

int max_nchannels(const CommParams& params, std::string& message) {
  int channels = kMaxChannels;
  if (params.max_nrings.value != -2) channels = static_cast<int>(params.max_nrings.value);
  if (params.max_nchannels.value != -2) channels = static_cast<int>(params.max_nchannels.value);
  channels = std::min(channels, kMaxChannels);  // ncclDevMaxChannelsForArgsBytes at the default NCCL_WORK_ARGS_BYTES
  if (channels < 1) {
    message = fmt::format("User asked for a maximum of {} channels, setting it to 1", channels);
    channels = 1;
  }
  return channels;
}

int min_nchannels(const CommParams& params, std::string& message) {
  int channels = 0;
  if (params.min_nrings.value != -2) channels = static_cast<int>(params.min_nrings.value);
  if (params.min_nchannels.value != -2) channels = static_cast<int>(params.min_nchannels.value);
  if (channels > kMaxChannels) {
    message = fmt::format("User asked for a minimum of {} channels, limiting to {}", channels, kMaxChannels);
    channels = kMaxChannels;
  }
  return std::max(channels, 0);
}

ChannelSetup setup_channels(const GraphSearchResult& ring, const GraphSearchResult& tree, const SearchLinks& links,
                            const std::vector<int>& gpu_ranks, const std::vector<int>& gpu_sm,
                            const CommParams& params, const ModelledVersion& version) {
  ChannelSetup setup;
  const int nranks = static_cast<int>(gpu_ranks.size());
  apply_cta_config(params, setup);
  setup.search_channels = std::min(ring.n_channels, tree.n_channels);
  connect_search_channels(ring, tree, nranks, setup);

  int channels = std::min(kMaxChannels, setup.search_channels * 2);
  setup.max_nchannels = max_nchannels(params, setup.max_nchannels_message);
  channels = std::min(std::min(setup.max_nchannels, channels), setup.max_ctas);
  setup.min_nchannels = min_nchannels(params, setup.min_nchannels_message);
  setup.ring_prev.resize(static_cast<std::size_t>(channels));
  setup.ring_next.resize(static_cast<std::size_t>(channels));
  setup.trees.resize(static_cast<std::size_t>(channels));
  channels = repeat_channels(setup, channels, std::max(setup.min_nchannels, setup.min_ctas));
  setup.coll_channels = channels;
  build_rings(setup, nranks);
  setup_p2p(links, gpu_ranks, gpu_sm, params, version, setup);
  return setup;
}

}  // namespace linkscope::topo
