#include "topo/net_locality.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "topo/graph_edit.hpp"
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

}  // namespace

NetLocality::NetLocality(const TopoSystem& system, const NcclParams& params, bool modulo_gpus)
    : system_(system),
      params_(params),
      modulo_gpus_(modulo_gpus),
      gpu_versions_(static_cast<std::size_t>(system.count(kGpu)), 0),
      net_versions_(static_cast<std::size_t>(system.count(kNet)), 0),
      nets_cache_(static_cast<std::size_t>(system.count(kGpu))),
      gpus_cache_(static_cast<std::size_t>(system.count(kNet))) {
  for (int n = system.count(kNet) - 1; n >= 0; --n) first_net_with_id_[system.nodes[kNet][n].id] = n;
  for (int g = system.count(kGpu) - 1; g >= 0; --g) first_gpu_with_rank_[system.nodes[kGpu][g].rank] = g;
}

void NetLocality::gpu_to_net_paths_changed(int gpu_index) { ++gpu_versions_[gpu_index]; }
void NetLocality::net_to_gpu_paths_changed(int net_index) { ++net_versions_[net_index]; }

const std::vector<int>& NetLocality::gpus_of(int net_index) {
  BestGpus& cached = gpus_cache_[net_index];
  if (!cached.valid || cached.version != net_versions_[net_index]) {
    cached.gpus = best_targets(system_, {kNet, net_index}, kGpu);
    cached.version = net_versions_[net_index];
    cached.valid = true;
  }
  return cached.gpus;
}

const NetLocality::LocalNets& NetLocality::nets_of(int gpu_index) {
  LocalNets& cached = nets_cache_[gpu_index];
  const bool fresh = cached.valid && cached.gpu_version == gpu_versions_[gpu_index] &&
                     (cached.first_net < 0 || cached.first_net_version == net_versions_[cached.first_net]);
  if (fresh) return cached;
  LocalNets local;
  local.nets = best_targets(system_, {kGpu, gpu_index}, kNet);
  if (local.nets.empty()) {
    throw ModelError(0, fmt::format("NCCL stops here: Could not find any local path from gpu {} to net.",
                                    gpu_index));
  }
  const int count = static_cast<int>(local.nets.size());
  // The GPUs local to the first NET (AUTO's divisor; since NCCL 2.30.7 the start's modulus): the answer then
  // depends on that NET's paths too.
  const auto sharing_gpus = [&] {
    local.first_net = local.nets[0];
    local.first_net_version = net_versions_[local.first_net];
    return std::max(static_cast<int>(gpus_of(local.first_net).size()), 1);
  };
  switch (params_.netdevs_policy) {
    case NetDevsPolicy::kAll: local.per_gpu = count; break;
    case NetDevsPolicy::kMax: local.per_gpu = std::min(params_.netdevs_policy_max, count); break;
    case NetDevsPolicy::kAuto: {
      const int gpus = sharing_gpus();
      local.per_gpu = (count + gpus - 1) / gpus;
      break;
    }
  }
  local.per_gpu = std::max(local.per_gpu, 1);
  local.start = system_.nodes[kGpu][gpu_index].dev;
  if (modulo_gpus_) local.start %= sharing_gpus();
  if (is_pow2(local.nets.size())) local.start = mirror_bits(local.start, count);
  local.gpu_version = gpu_versions_[gpu_index];
  local.valid = true;
  cached = std::move(local);
  return cached;
}

int64_t NetLocality::net_for_channel(const LocalNets& local, int channel) const {
  const auto count = static_cast<int64_t>(local.nets.size());
  const int64_t position = ((local.start + channel % local.per_gpu) % count + count) % count;
  return system_.nodes[kNet][local.nets[static_cast<std::size_t>(position)]].id;
}

int64_t NetLocality::local_net_id(int gpu_index, int channel) { return net_for_channel(nets_of(gpu_index), channel); }

int NetLocality::local_gpu(int64_t net_id) {
  const auto net = first_net_with_id_.find(net_id);
  if (net == first_net_with_id_.end()) return -1;
  // NCCL loops channel-major over the candidates (channels 0..63); only channels below per_gpu give new
  // answers, so the first match is the candidate with the lowest matching channel, ties to the earlier one.
  int best_gpu = -1;
  int best_channel = kMaxChannels;
  const std::vector<int> candidates = gpus_of(net->second);  // a copy: nets_of() may refresh the cache
  for (const int g : candidates) {
    // NCCL asks ncclTopoGetLocalNet by rank: the first GPU with that rank.
    const auto by_rank = first_gpu_with_rank_.find(system_.nodes[kGpu][g].rank);
    const LocalNets& local = nets_of(by_rank->second);
    const int channels = std::min(kMaxChannels, local.per_gpu);
    for (int c = 0; c < channels && c < best_channel; ++c) {
      if (net_for_channel(local, c) == net_id) {
        best_channel = c;
        best_gpu = g;
        break;
      }
    }
  }
  return best_gpu;
}

int64_t local_net_id(const TopoSystem& system, const NcclParams& params, int gpu_index, int channel,
                     bool modulo_gpus) {
  return NetLocality(system, params, modulo_gpus).local_net_id(gpu_index, channel);
}

int local_gpu_of_net(const TopoSystem& system, const NcclParams& params, int64_t net_id, bool modulo_gpus) {
  return NetLocality(system, params, modulo_gpus).local_gpu(net_id);
}

}  // namespace linkscope::topo
