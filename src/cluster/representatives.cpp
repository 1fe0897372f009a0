#include "cluster/representatives.hpp"

#include <fmt/format.h>

#include "discover/gpu_nic_relations.hpp"

namespace linkscope::cluster {

namespace {

// The host's `system.gpu_nics` entry of a CUDA ordinal, or nullptr.
const model::GpuNics* gpu_nics_of(const HostReport& host, int cuda_device) {
  if (!host.system) return nullptr;
  for (const auto& gpu : host.system->gpu_nics) {
    if (gpu.cuda_ordinal.value_or(-1) == cuda_device) return &gpu;
  }
  return nullptr;
}

}  // namespace

std::vector<Representative> choose_representatives(const Roster& roster, const HostsComparison& hosts) {
  std::vector<Representative> chosen;
  for (std::size_t h = 0; h < roster.hosts.size(); ++h) {
    Representative best;
    int best_distance = 1 << 30;
    std::string no_gpu;
    for (int rank : roster.hosts[h].ranks) {
      const RankHello& hello = roster.ranks.at(static_cast<std::size_t>(rank));
      if (!hello.cuda_device) {
        if (no_gpu.empty()) no_gpu = fmt::format("rank {}: {}", rank, hello.cuda_device_reason);
        continue;
      }
      Representative candidate;
      candidate.rank = rank;
      candidate.cuda_device = *hello.cuda_device;
      int distance = 1 << 20;  // unknown relations rank after every known one
      const model::GpuNics* gpu = h < hosts.hosts.size() ? gpu_nics_of(hosts.hosts[h], *hello.cuda_device) : nullptr;
      if (gpu != nullptr && gpu->closest) {
        candidate.nic = *gpu->closest;
        candidate.relation = gpu->closest_relation.value_or("");
        distance = discover::relation_distance(candidate.relation);
      }
      if (distance < best_distance) {
        best_distance = distance;
        best = candidate;
      }
    }
    if (best.rank < 0) {
      best.reason = no_gpu.empty() ? "no rank on this host" : "no rank on this host drives a GPU (" + no_gpu + ")";
    } else if (!best.nic.empty()) {
      best.reason = fmt::format("rank {}: GPU {} is {} to {}", best.rank, best.cuda_device, best.relation, best.nic);
    } else {
      best.reason = fmt::format("rank {}: GPU {} (no GPU-NIC relation known)", best.rank, best.cuda_device);
    }
    chosen.push_back(best);
  }
  return chosen;
}

}  // namespace linkscope::cluster
