#pragma once
// How NCCL turns the ring and tree graphs of one node into the channels a communicator uses
// (graph/connect.cc ncclTopoPreset / ncclTopoPostset, graph/rings.cc ncclBuildRings, init.cc computeBuffSizes,
// graph/paths.cc ncclTopoComputeP2pChannels): each search channel becomes two channels, then NCCL_MAX_NCHANNELS
// and NCCL_MIN_NCHANNELS (and the NCCL_MIN_CTAS/NCCL_MAX_CTAS config) cut or repeat them.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "topo/comm_constants.hpp"
#include "topo/comm_params.hpp"
#include "topo/nccl_versions.hpp"
#include "topo/graph_search.hpp"
#include "topo/search_links.hpp"

namespace linkscope::topo {

// A rank's place in one channel's tree: its parent and up to three children (-1 = none).
struct TreeNeighbours {
  int up = -1;
  std::array<int, kMaxTreeArity> down{-1, -1, -1};
};

// Where the node's tree meets other nodes in one channel (ncclTopoRanks treeToParent/treeToChild0/1): the ranks
// NCCL connects to other nodes, and the ranks that log the channel's "Tree" line.
struct TreeHeads {
  int parent = -1;
  int child0 = -1;
  int child1 = -1;
};

struct ChannelSetup {
  int search_channels = 0;  // ring and tree graphs aligned to the same count (the smaller one)
  int coll_channels = 0;    // channels of collectives (comm->nChannels): 2 x search_channels, then min/max
  int max_nchannels = 0;    // ncclMaxNchannels() as NCCL computed it
  int min_nchannels = 0;    // ncclMinNchannels()
  int min_ctas = 1;         // the communicator config (NCCL_MIN_CTAS / NCCL_MAX_CTAS)
  int max_ctas = kMaxChannels;
  // NCCL's INFO lines when it corrects a limit ("User asked for a maximum of 0 channels, setting it to 1").
  std::string max_nchannels_message;
  std::string min_nchannels_message;

  std::vector<TreeHeads> tree_heads;                          // [search channel]
  std::vector<std::vector<TreeNeighbours>> search_trees;      // [search channel][rank], as the trees are built
  std::vector<std::vector<TreeNeighbours>> trees;             // [channel][rank], coll_channels channels
  std::vector<std::vector<int>> ring_prev;                    // [channel][rank]
  std::vector<std::vector<int>> ring_next;                    // [channel][rank]
  std::vector<std::vector<int>> rings;                        // [channel] ranks in ring order from rank 0

  // computeBuffSizes and ncclTopoComputeP2pChannels
  bool all_nvlink = false;            // every GPU pair over NVLink (path type better than PIX)
  std::array<int, kProtoCount> buff_sizes{};  // LL, LL128, Simple (bytes)
  int p2p_chunk_size = 0;             // "P2P Chunksize set to ..."
  int p2p_channels = 0;
  int p2p_channels_per_peer = 0;
  int nvls_channels = 0;              // NVLS is off
};

// `ring` and `tree` as ncclTopoCompute returned them; ranks 0..n-1 are the GPUs of one node.
ChannelSetup setup_channels(const GraphSearchResult& ring, const GraphSearchResult& tree, const SearchLinks& links,
                            const std::vector<int>& gpu_ranks, const std::vector<int>& gpu_sm,
                            const CommParams& params, const ModelledVersion& version);

// ncclMaxNchannels / ncclMinNchannels: the NCCL_MAX_NCHANNELS and NCCL_MIN_NCHANNELS limits (legacy names
// NCCL_MAX_NRINGS / NCCL_MIN_NRINGS), with the INFO line NCCL prints when it corrects one.
int max_nchannels(const CommParams& params, std::string& message);
int min_nchannels(const CommParams& params, std::string& message);

}  // namespace linkscope::topo
