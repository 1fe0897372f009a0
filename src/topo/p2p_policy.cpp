#include "topo/p2p_policy.hpp"

#include <fmt/format.h>

#include "topo/path_search.hpp"

namespace linkscope::topo {

int default_p2p_level(const TopoSystem& system) {
  if (system.count(kCpu) > 0) {
    const Node& cpu = system.nodes[kCpu][0];
    // Pairs of GPUs; since NCCL 2.30 pairs of physical devices (DEV nodes), whatever the ranks on them.
    const int gpus = system.count(kDev) > 0 ? system.count(kDev) : system.count(kGpu);
    if (cpu.arch == kArchX86 && cpu.vendor == kVendorAmd && gpus <= 2) return kPathSys;
  }
  return kPathPxb;
}

std::string p2p_reason(const P2pCheck& check) {
  return fmt::format("path {} {} level {}{}", path_type_name(check.path_type), check.p2p ? "<=" : ">",
                     path_type_name(check.level), check.level_from_env ? " (environment)" : "");
}

P2pCheck check_p2p(ModelContext& context, int rank1, int rank2) {
  P2pCheck check;
  const TopoSystem& system = context.system;
  const int g1 = context.gpu_index(rank1);
  const int g2 = context.gpu_index(rank2);
  if (g1 < 0 || g2 < 0) return check;
  const Path& path = path_between(system, {kGpu, g1}, {kGpu, g2});
  // Through an intermediate GPU: GPU-GPU-GPU, since NCCL 2.30 GPU-DEV-DEV-DEV-GPU (the relay is the second hop's
  // DEV, named by the first GPU with its device number).
  const bool devices = context.version.has(NcclChange::kDeviceNodes);
  if (path.count == (devices ? 4 : 2) && path.hops >= 0) {
    const std::vector<Link> hops = system.hops_of(path);
    const NodeRef relay = hops[devices ? 1 : 0].remote;
    if (relay.type == kGpu) check.intermediate_rank = system.at(relay).rank;
    if (relay.type == kDev) check.intermediate_rank = rank_of_device(system, system.at(relay).dev);
  }
  check.level = default_p2p_level(system);
  if (!context.p2p_level_resolved) {
    context.p2p_level_resolved = true;
    if (context.params.p2p_level) context.emit(context.params.p2p_echo);
  }
  if (context.params.p2p_level) {
    check.level = *context.params.p2p_level;
    check.level_from_env = true;
  }
  check.path_type = path.type;
  check.p2p = path.type <= check.level;
  const Node& gpu1 = system.nodes[kGpu][g1];
  const Node& gpu2 = system.nodes[kGpu][g2];
  check.read = path.type == kPathNvl && gpu1.sm == gpu2.sm && gpu1.sm == 80;
  return check;
}

}  // namespace linkscope::topo
