#include "topo/path_rewrites.hpp"

#include <algorithm>

#include "topo/gdr_policy.hpp"
#include "topo/net_locality.hpp"
#include "topo/p2p_policy.hpp"
#include "topo/path_search.hpp"

namespace linkscope::topo {

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

namespace {

void relabel_p2c(TopoSystem& system, int g, int n) {
  Path& to_net = mutable_path(system, {kGpu, g}, {kNet, n});
  to_net.type = std::min(kPathP2c, to_net.type);
  Path& to_gpu = mutable_path(system, {kNet, n}, {kGpu, g});
  to_gpu.type = std::min(kPathP2c, to_gpu.type);
}

bool reaches_net_through_c2c_cpu(const TopoSystem& system, int g, int n, int c) {
  const int gpu_cpu = path_between(system, {kGpu, g}, {kCpu, c}).type;
  const int net_cpu = path_between(system, {kNet, n}, {kCpu, c}).type;
  return merge_path_type(gpu_cpu, net_cpu) == kPathP2c;
}

}  // namespace

void relabel_c2c_paths(ModelContext& context) {
  TopoSystem& system = context.system;
  if (context.version.has(NcclChange::kP2cOnlyToLocalNets)) {
    // Per GPU, only its closest NETs: elsewhere a PXN relay should win over the CPU's PCIe.
    for (int g = 0; g < system.count(kGpu); ++g) {
      const int c = local_cpu(system, g);
      if (c < 0) continue;
      for (const int n : best_targets(system, {kGpu, g}, kNet)) {
        if (reaches_net_through_c2c_cpu(system, g, n, c)) relabel_p2c(system, g, n);
      }
    }
    return;
  }
  for (int n = 0; n < system.count(kNet); ++n) {
    for (int g = 0; g < system.count(kGpu); ++g) {
      const int c = local_cpu(system, g);
      if (reaches_net_through_c2c_cpu(system, g, n, c)) relabel_p2c(system, g, n);
    }
  }
}

void apply_pxn_and_gdr(ModelContext& context) {
  TopoSystem& system = context.system;
  const NcclParams& params = context.params;
  const int pxn_limit = params.pxn_c2c != 0 ? kPathP2c : kPathPxb;
  NetLocality locality(system, params, context.version.has(NcclChange::kLocalNetModuloGpus));
  for (int n = 0; n < system.count(kNet); ++n) {
    const int64_t net_id = system.nodes[kNet][n].id;
    for (int g = 0; g < system.count(kGpu); ++g) {
      const NodeRef gpu{kGpu, g};
      const NodeRef net{kNet, n};
      if (params.pxn_disable != 1) {
        const int k = locality.local_gpu(net_id);
        if (k != g && k != -1) {
          const NodeRef peer{kGpu, k};
          // Since 2.30.3 the relay must have GDR to the NIC (NCCL asks before its condition, every time).
          const bool relay_gdr = !context.version.has(NcclChange::kPxnNeedsGdr) ||
                                 check_gdr(context, system.at(peer).rank, net_id, 1).mode != kGdrDisabled;
          const Path& peer_net = path_between(system, peer, net);
          const Path& peer_gpu = path_between(system, peer, gpu);
          const Path& gpu_net = path_between(system, gpu, net);
          const bool same_host = (static_cast<uint64_t>(system.at(peer).id) >> 56) ==
                                 (static_cast<uint64_t>(system.at(gpu).id) >> 56);
          if (peer_net.type <= pxn_limit && relay_gdr && peer_gpu.type <= kPathNvl && same_host &&
              (peer_net.bw > gpu_net.bw || gpu_net.type > kPathPxn)) {
            inter_step(system, peer, gpu, net);  // GPU -> NET direction only
            locality.gpu_to_net_paths_changed(g);
          }
        }
      }
      if (path_between(system, gpu, net).type < kPathPhb) {
        const GdrCheck gdr = check_gdr(context, system.nodes[kGpu][g].rank, net_id, 0);
        if (gdr.mode == kGdrDisabled) {
          const NodeRef cpu{kCpu, local_cpu(system, g)};
          inter_step(system, cpu, net, gpu);
          inter_step(system, cpu, gpu, net);
          locality.net_to_gpu_paths_changed(n);
          locality.gpu_to_net_paths_changed(g);
        }
      }
    }
  }
}

}  // namespace linkscope::topo
