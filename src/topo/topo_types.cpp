#include "topo/topo_types.hpp"

namespace linkscope::topo {

namespace {
constexpr const char* kNodeTypeNames[kNodeTypeCount] = {"GPU", "PCI", "NVS", "CPU", "NIC", "NET", "DEV"};
constexpr const char* kPathTypeNames[] = {"LOC", "NVL", "NVB", "C2C", "PIX", "PXB",
                                          "P2C", "PXN", "PHB", "SYS", "NET", "DIS"};
// Link names share the path table's values; the values no link uses print as "".
constexpr const char* kLinkTypeNames[] = {"LOC", "NVL", "", "C2C", "PCI", "", "", "", "", "SYS", "NET"};
}  // namespace

const char* node_type_name(int type) {
  return type >= 0 && type < kNodeTypeCount ? kNodeTypeNames[type] : "?";
}

const char* path_type_name(int type) {
  return type >= 0 && type <= kPathDis ? kPathTypeNames[type] : "?";
}

const char* link_type_name(int type) {
  return type >= 0 && type <= kLinkNet ? kLinkTypeNames[type] : "";
}

int TopoSystem::index_of(int type, int64_t id) const {
  const auto& list = nodes[type];
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (list[i].id == id) return static_cast<int>(i);
  }
  return -1;
}

NodeRef TopoSystem::device_of(int gpu_index) const {
  for (const Link& link : nodes[kGpu][gpu_index].links) {
    if (link.type == kLinkLoc && link.remote.type == kDev) return link.remote;
  }
  return {kDev, -1};
}

NodeRef TopoSystem::first_gpu_on(NodeRef node) const {
  if (node.type != kDev) return node;
  for (const Link& link : at(node).links) {
    if (link.remote.type == kGpu) return link.remote;
  }
  return node;
}

std::vector<Link> TopoSystem::hops_of(const Path& path) const {
  std::vector<Link> hops;
  for (int cell = path.hops; cell >= 0 && static_cast<int>(hops.size()) < path.count;
       cell = hop_cells[cell].next) {
    hops.push_back(hop_cells[cell].link);
  }
  return hops;
}

}  // namespace linkscope::topo
