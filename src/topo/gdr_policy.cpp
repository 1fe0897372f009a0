#include "topo/gdr_policy.hpp"

#include <fmt/format.h>

#include "topo/nccl_format.hpp"
#include "topo/path_search.hpp"

namespace linkscope::topo {

namespace {

// NCCL's INFO line for one decision, as the modelled release prints it: 2.28 names the GPU by rank and the HCA by
// id; 2.29 names both nodes (and the PXN relay) and puts read and mode inside the parentheses; 2.30.3 prints none.
void emit_decision(ModelContext& context, int rank, int g, int relay, int n, const GdrCheck& check, int read) {
  if (context.version.has(NcclChange::kGdrLinesTraceOnly)) return;
  const TopoSystem& system = context.system;
  const bool enabled = check.mode != kGdrDisabled;
  const char* verb = enabled ? "Enabled" : "Disabled";
  const std::string comparison =
      fmt::format("distance {} {} {}", check.distance, enabled ? "<=" : ">", check.level);
  if (!context.version.has(NcclChange::kGdrLineNamesNodes)) {
    const std::string tail = enabled ? fmt::format("), read {} mode {}", read, gdr_mode_name(check.mode)) : ")";
    context.emit(fmt::format("GPU Direct RDMA {} for GPU {} / HCA {:x} ({}{}", verb, rank,
                             static_cast<uint64_t>(system.nodes[kNet][n].id), comparison, tail));
    return;
  }
  std::string line = fmt::format("GPU Direct RDMA {} for {} (rank {}) - {} (", verb,
                                 nccl_node_id_decimal(system, {kGpu, g}), rank, nccl_node_id_decimal(system, {kNet, n}));
  if (relay != g) line += fmt::format(" using PXN via {}, ", nccl_node_id_decimal(system, {kGpu, relay}));
  const std::string tail = enabled ? fmt::format(", read {}, mode {})", read, gdr_mode_name(check.mode)) : ")";
  context.emit(line + comparison + tail);
}

}  // namespace

const char* gdr_mode_name(int mode) {
  switch (mode) {
    case kGdrDefault: return "Default";
    case kGdrPci: return "PCI";
    default: return "Disabled";
  }
}

int default_gdr_level(const NcclParams& params, const ModelledVersion& version) {
  return version.has(NcclChange::kGdrDefaultLevelP2c) && params.net_gdr_c2c != 0 ? kPathP2c : kPathPxb;
}

GdrCheck check_gdr(ModelContext& context, int rank, int64_t net_id, int read) {
  GdrCheck check;
  const TopoSystem& system = context.system;
  const int n = context.net_index(net_id);
  const int own_gpu = context.gpu_index(rank);
  int g = own_gpu;
  if (n < 0 || g < 0) {
    check.reason = "GPU or NET not in the topology";
    return check;
  }
  if (system.nodes[kNet][n].net_gdr == 0) {
    check.reason = "the NIC does not support GPUDirect RDMA (net gdr=0)";
    return check;
  }
  if (system.nodes[kGpu][g].gdr == 0) {
    check.reason = "the GPU does not support GPUDirect RDMA (gpu gdr=0)";
    return check;
  }
  if (read != 0) {
    const int64_t read_param = context.params.net_gdr_read;
    if (read_param == 0) {
      check.reason = "GDR reads disabled by NCCL_NET_GDR_READ=0";
      return check;
    }
    if (read_param < 0 && system.nodes[kGpu][g].sm < 80) {
      bool nvlink = system.count(kGpu) == 1;
      for (int i = 0; i < system.count(kGpu) && !nvlink; ++i) {
        if (i != g && path_between(system, {kGpu, g}, {kGpu, i}).type == kPathNvl) nvlink = true;
      }
      if (!nvlink) {
        check.reason = "GDR reads are off below SM80 unless the GPU has an NVLink peer";
        return check;
      }
    }
  }
  check.level = default_gdr_level(context.params, context.version);
  if (!context.gdr_level_resolved) {
    context.gdr_level_resolved = true;
    if (context.params.gdr_level) context.emit(context.params.gdr_echo);
  }
  if (context.params.gdr_level) check.level = *context.params.gdr_level;

  int distance = path_between(system, {kGpu, g}, {kNet, n}).type;
  if (distance == kPathPxn) {
    // Through a PXN relay the relay GPU's own distance to the NIC counts.
    g = context.gpu_index(pxn_intermediate_rank(system, g, n));
    distance = path_between(system, {kGpu, g}, {kNet, n}).type;
  }
  // Before 2.29 a CPU-attached NIC of a C2C GPU counted as C2C (under the PXB default); since, P2C is the default level.
  const bool p2c_is_level = context.version.has(NcclChange::kGdrDefaultLevelP2c);
  if (!p2c_is_level && context.params.net_gdr_c2c != 0 && distance == kPathP2c) {
    context.emit(fmt::format("GPU {} / HCA {:x} connected via C2C link", rank, static_cast<uint64_t>(net_id)));
    distance = kPathC2c;
  }
  check.distance = distance;
  if (distance > check.level) {
    emit_decision(context, rank, own_gpu, g, n, check, read);
    check.reason = fmt::format("distance {} > level {}", path_type_name(distance), path_type_name(check.level));
    return check;
  }
  const int c = local_cpu(system, g);
  const int direct_type = p2c_is_level ? kPathP2c : kPathC2c;
  check.mode = path_between(system, {kGpu, g}, {kCpu, c}).type == kPathC2c && distance != direct_type ? kGdrPci
                                                                                                       : kGdrDefault;
  emit_decision(context, rank, own_gpu, g, n, check, read);
  check.reason = fmt::format("distance {} <= level {}", path_type_name(distance), path_type_name(check.level));
  return check;
}

}  // namespace linkscope::topo
