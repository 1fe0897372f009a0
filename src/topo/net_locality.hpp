#pragma once
// Which NET a GPU uses and which GPU is local to a NET (NCCL ncclTopoGetLocalNet / ncclTopoGetLocalGpu,
// spec §5.3). Phase 5 asks for the local GPU of every NET once per GPU while it rewrites paths, so the cache
// keeps NCCL's "best targets" lists and recomputes only those whose path arrays changed.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "topo/env_params.hpp"
#include "topo/topo_types.hpp"

namespace linkscope::topo {

class NetLocality {
 public:
  // `modulo_gpus`: NCCL 2.30.7's start, the GPU's dev modulo the number of GPUs local to its first NET.
  NetLocality(const TopoSystem& system, const NcclParams& params, bool modulo_gpus = false);

  // ncclTopoGetLocalNet: the id of the NET the GPU (index) uses on `channel`.
  int64_t local_net_id(int gpu_index, int channel);
  // ncclTopoGetLocalGpu: the GPU index whose local NET on the lowest channel is this NET; -1 if none.
  int local_gpu(int64_t net_id);

  // Callers that rewrite paths say which array changed.
  void gpu_to_net_paths_changed(int gpu_index);
  void net_to_gpu_paths_changed(int net_index);

 private:
  struct LocalNets {
    std::vector<int> nets;  // the GPU's best NETs (index order)
    int per_gpu = 1;        // channels one GPU spreads over them (NCCL_NETDEVS_POLICY)
    int start = 0;          // dev, bit-mirrored when the count is a power of two
    uint64_t gpu_version = 0;
    int first_net = -1;
    uint64_t first_net_version = 0;
    bool valid = false;
  };
  struct BestGpus {
    std::vector<int> gpus;
    uint64_t version = 0;
    bool valid = false;
  };

  const LocalNets& nets_of(int gpu_index);
  const std::vector<int>& gpus_of(int net_index);
  int64_t net_for_channel(const LocalNets& local, int channel) const;

  const TopoSystem& system_;
  const NcclParams& params_;
  bool modulo_gpus_ = false;
  std::vector<uint64_t> gpu_versions_;
  std::vector<uint64_t> net_versions_;
  std::vector<LocalNets> nets_cache_;
  std::vector<BestGpus> gpus_cache_;
  std::unordered_map<int64_t, int> first_net_with_id_;
  std::unordered_map<int, int> first_gpu_with_rank_;
};

// Uncached one-off queries (tests, reports).
int64_t local_net_id(const TopoSystem& system, const NcclParams& params, int gpu_index, int channel,
                     bool modulo_gpus = false);
int local_gpu_of_net(const TopoSystem& system, const NcclParams& params, int64_t net_id, bool modulo_gpus = false);

}  // namespace linkscope::topo
