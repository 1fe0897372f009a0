#include "topo/gdr_policy.hpp"

#include <fmt/format.h>

#include "topo/path_search.hpp"

namespace linkscope::topo {

const char* gdr_mode_name(int mode) {
  switch (mode) {
    case kGdrDefault: return "Default";
    case kGdrPci: return "PCI";
    default: return "Disabled";
  }
}

GdrCheck check_gdr(ModelContext& context, int rank, int64_t net_id, int read) {
  GdrCheck check;
  const TopoSystem& system = context.system;
  const int n = context.net_index(net_id);
  int g = context.gpu_index(rank);
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
  check.level = kPathPxb;
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
  if (context.params.net_gdr_c2c != 0 && distance == kPathP2c) {
    context.emit(fmt::format("GPU {} / HCA {:x} connected via C2C link", rank, static_cast<uint64_t>(net_id)));
    distance = kPathC2c;
  }
  check.distance = distance;
  if (distance > check.level) {
    context.emit(fmt::format("GPU Direct RDMA Disabled for GPU {} / HCA {:x} (distance {} > {})", rank,
                             static_cast<uint64_t>(net_id), distance, check.level));
    check.reason = fmt::format("distance {} > level {}", path_type_name(distance), path_type_name(check.level));
    return check;
  }
  const int c = local_cpu(system, g);
  check.mode = path_between(system, {kGpu, g}, {kCpu, c}).type == kPathC2c && distance != kPathC2c ? kGdrPci
                                                                                                    : kGdrDefault;
  context.emit(fmt::format("GPU Direct RDMA Enabled for GPU {} / HCA {:x} (distance {} <= {}), read {} mode {}", rank,
                           static_cast<uint64_t>(net_id), distance, check.level, read, gdr_mode_name(check.mode)));
  check.reason = fmt::format("distance {} <= level {}", path_type_name(distance), path_type_name(check.level));
  return check;
}

}  // namespace linkscope::topo
