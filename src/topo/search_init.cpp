#include "topo/search_init.hpp"

#include <algorithm>

namespace linkscope::topo {

SystemBandwidth system_bandwidth(const TopoSystem& system, bool inter_node) {
  SystemBandwidth result;
  if (!inter_node && system.count(kGpu) == 1) return {kLocBw, kLocBw};
  // Since NCCL 2.30 the search starts from the physical devices (DEV nodes), which hold the NVLink and PCI links.
  const int source_type = system.count(kDev) > 0 ? kDev : kGpu;
  const int target_type = inter_node ? kNet : source_type;
  for (const Node& gpu : system.nodes[source_type]) {
    for (const Path& path : gpu.paths[target_type]) {
      if (path.count != 0) result.max_bw = std::max(result.max_bw, path.bw);
    }
    float nvlink_bw = 0.0f;
    float pci_bw = 0.0f;
    for (const Link& link : gpu.links) {
      if (link.type == kLinkNvl) nvlink_bw += link.bw;
      if (link.type == kLinkPci) pci_bw = link.bw;
    }
    result.total_bw = std::max(result.total_bw, std::max(pci_bw, nvlink_bw));
  }
  return result;
}

}  // namespace linkscope::topo
