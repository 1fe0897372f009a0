#include "topo/path_rewrites.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "topo/gdr_policy.hpp"
#include "topo/graph_edit.hpp"
#include "topo/p2p_policy.hpp"
#include "topo/path_search.hpp"

namespace linkscope::topo {

namespace {

constexpr int kMaxChannels = 64;

int mirror_bits(int value, int pow2) {
  int mirror = 0;
  for (int b = 1, mb = pow2 >> 1; b < pow2; b <<= 1, mb >>= 1) {
    if (value & b) mirror |= mb;
  }
  return mirror;
}

bool is_pow2(std::size_t v) { return v != 0 && (v & (v - 1)) == 0; }

// What ncclTopoGetLocalNet computes before the channel offset: the GPU's best NETs, how many channels a GPU
// spreads over them, and its starting position.
struct LocalNets {
  std::vector<int> nets;
  int per_gpu = 1;
  int start = 0;
};

LocalNets local_nets(const TopoSystem& system, const NcclParams& params, int gpu_index) {
  LocalNets local;
  local.nets = best_targets(system, {kGpu, gpu_index}, kNet);
  if (local.nets.empty()) {
    throw ModelError(0, fmt::format("NCCL 2.28.9 stops here: Could not find any local path from gpu {} to net.",
                                    gpu_index));
  }
  const int count = static_cast<int>(local.nets.size());
  switch (params.netdevs_policy) {
    case NetDevsPolicy::kAll: local.per_gpu = count; break;
    case NetDevsPolicy::kMax: local.per_gpu = std::min(params.netdevs_policy_max, count); break;
    case NetDevsPolicy::kAuto: {
      const auto gpus = static_cast<int>(best_targets(system, {kNet, local.nets[0]}, kGpu).size());
      local.per_gpu = (count + std::max(gpus, 1) - 1) / std::max(gpus, 1);
      break;
    }
  }
  local.per_gpu = std::max(local.per_gpu, 1);
  int start = system.nodes[kGpu][gpu_index].dev;
  if (is_pow2(local.nets.size())) start = mirror_bits(start, count);
  local.start = start;
  return local;
}

int64_t net_for_channel(const TopoSystem& system, const LocalNets& local, int channel) {
  const auto count = static_cast<int64_t>(local.nets.size());
  const int64_t position = ((local.start + channel % local.per_gpu) % count + count) % count;
  return system.nodes[kNet][local.nets[static_cast<std::size_t>(position)]].id;
}

}  // namespace

int64_t local_net_id(const TopoSystem& system, const NcclParams& params, int gpu_index, int channel) {
  return net_for_channel(system, local_nets(system, params, gpu_index), channel);
}

int local_gpu_of_net(const TopoSystem& system, const NcclParams& params, int64_t net_id) {
  const int net_index = system.index_of(kNet, net_id);
  if (net_index < 0) return -1;
  // NCCL loops channel-major over the candidates; only channels below per_gpu give new answers, so the first
  // match is the candidate with the lowest matching channel (ties to the earlier candidate).
  int best_gpu = -1;
  int best_channel = kMaxChannels;
  for (const int g : best_targets(system, {kNet, net_index}, kGpu)) {
    const int by_rank = system.gpu_index_of_rank(system.nodes[kGpu][g].rank);
    const LocalNets local = local_nets(system, params, by_rank < 0 ? g : by_rank);
    const int channels = std::min(kMaxChannels, local.per_gpu);
    for (int c = 0; c < channels && c < best_channel; ++c) {
      if (net_for_channel(system, local, c) == net_id) {
        best_channel = c;
        best_gpu = g;
        break;
      }
    }
  }
  return best_gpu;
}

void divert_non_p2p_pairs(ModelContext& context) {
  TopoSystem& system = context.system;
  for (int g = 0; g < system.count(kGpu); ++g) {
    for (int p = 0; p < system.count(kGpu); ++p) {
      const P2pCheck check = check_p2p(context, system.nodes[kGpu][p].rank, system.nodes[kGpu][g].rank);
      if (check.p2p) continue;
      const int cpu = local_cpu(system, g);
      inter_step(system, {kCpu, cpu}, {kGpu, p}, {kGpu, g});
    }
  }
}

void relabel_c2c_paths(ModelContext& context) {
  TopoSystem& system = context.system;
  for (int n = 0; n < system.count(kNet); ++n) {
    for (int g = 0; g < system.count(kGpu); ++g) {
      const int c = local_cpu(system, g);
      const int gpu_cpu = path_between(system, {kGpu, g}, {kCpu, c}).type;
      const int net_cpu = path_between(system, {kNet, n}, {kCpu, c}).type;
      if (merge_path_type(gpu_cpu, net_cpu) != kPathP2c) continue;
      Path& to_net = mutable_path(system, {kGpu, g}, {kNet, n});
      to_net.type = std::min(kPathP2c, to_net.type);
      Path& to_gpu = mutable_path(system, {kNet, n}, {kGpu, g});
      to_gpu.type = std::min(kPathP2c, to_gpu.type);
    }
  }
}

void apply_pxn_and_gdr(ModelContext& context) {
  TopoSystem& system = context.system;
  const NcclParams& params = context.params;
  const int pxn_limit = params.pxn_c2c != 0 ? kPathP2c : kPathPxb;
  for (int n = 0; n < system.count(kNet); ++n) {
    const int64_t net_id = system.nodes[kNet][n].id;
    for (int g = 0; g < system.count(kGpu); ++g) {
      const NodeRef gpu{kGpu, g};
      const NodeRef net{kNet, n};
      if (params.pxn_disable != 1) {
        const int k = local_gpu_of_net(system, params, net_id);
        if (k != g && k != -1) {
          const NodeRef peer{kGpu, k};
          const Path& peer_net = path_between(system, peer, net);
          const Path& peer_gpu = path_between(system, peer, gpu);
          const Path& gpu_net = path_between(system, gpu, net);
          const bool same_host = (static_cast<uint64_t>(system.at(peer).id) >> 56) ==
                                 (static_cast<uint64_t>(system.at(gpu).id) >> 56);
          if (peer_net.type <= pxn_limit && peer_gpu.type <= kPathNvl && same_host &&
              (peer_net.bw > gpu_net.bw || gpu_net.type > kPathPxn)) {
            inter_step(system, peer, gpu, net);  // GPU -> NET direction only
          }
        }
      }
      if (path_between(system, gpu, net).type < kPathPhb) {
        const GdrCheck gdr = check_gdr(context, system.nodes[kGpu][g].rank, net_id, 0);
        if (gdr.mode == kGdrDisabled) {
          const NodeRef cpu{kCpu, local_cpu(system, g)};
          inter_step(system, cpu, net, gpu);
          inter_step(system, cpu, gpu, net);
        }
      }
    }
  }
}

}  // namespace linkscope::topo
