#include "topo/graph_edit.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace linkscope::topo {

NodeRef create_node(TopoSystem& system, int type, int64_t id, long xml_line) {
  auto& list = system.nodes[type];
  if (static_cast<int>(list.size()) == kMaxNodesPerType) {
    throw ModelError(xml_line, fmt::format("more than {} {} nodes; NCCL stops here "
                                           "(Error : tried to create too many nodes of type {})",
                                           kMaxNodesPerType, node_type_name(type), type));
  }
  Node node;
  node.type = type;
  node.id = id;
  node.xml.line = xml_line;
  list.push_back(std::move(node));
  return {type, static_cast<int>(list.size()) - 1};
}

void connect_nodes(TopoSystem& system, NodeRef from, NodeRef to, int link_type, float bw) {
  auto& links = system.at(from).links;
  std::size_t index = 0;
  while (index < links.size() && !(links[index].remote == to && links[index].type == link_type)) ++index;
  if (index == links.size()) {
    if (static_cast<int>(links.size()) == kMaxLinksPerNode) {
      throw ModelError(system.at(from).xml.line,
                       fmt::format("more than {} links on one node; NCCL stops here "
                                   "(Error : too many Topo links (max {}))",
                                   kMaxLinksPerNode, kMaxLinksPerNode));
    }
    links.push_back({link_type, 0.0f, to});
  }
  links[index].bw += bw;
  while (index > 0 && links[index - 1].bw < links[index].bw) {
    std::swap(links[index - 1], links[index]);
    --index;
  }
}

void remove_node(TopoSystem& system, NodeRef removed) {
  for (int type = 0; type < kNodeTypeCount; ++type) {
    for (int n = 0; n < system.count(type); ++n) {
      if (NodeRef{type, n} == removed) continue;
      auto& links = system.nodes[type][n].links;
      links.erase(std::remove_if(links.begin(), links.end(), [&](const Link& link) { return link.remote == removed; }),
                  links.end());
      for (auto& link : links) {
        if (link.remote.type == removed.type && link.remote.index > removed.index) --link.remote.index;
      }
    }
  }
  auto& list = system.nodes[removed.type];
  list.erase(list.begin() + removed.index);
}

namespace {

class UplinkSorter {
 public:
  explicit UplinkSorter(TopoSystem& system) : system_(system) {
    for (int type = 0; type < kNodeTypeCount; ++type) visited_[type].assign(system.nodes[type].size(), false);
  }

  void visit(NodeRef node, NodeRef up) {
    // NCCL's PCI links form a tree; the guard only keeps a malformed graph from recursing forever.
    if (visited_[node.type][node.index]) return;
    visited_[node.type][node.index] = true;
    auto& links = system_.at(node).links;
    if (up.valid()) {
      const auto it = std::find_if(links.begin(), links.end(), [&](const Link& link) { return link.remote == up; });
      if (it != links.end()) std::rotate(it, it + 1, links.end());
    }
    for (std::size_t l = 0; l < system_.at(node).links.size(); ++l) {
      const Link link = system_.at(node).links[l];
      if (link.type == kLinkPci && link.remote != up) visit(link.remote, node);
    }
  }

 private:
  TopoSystem& system_;
  std::array<std::vector<bool>, kNodeTypeCount> visited_;
};

NodeRef find_cpu(const TopoSystem& system, NodeRef node, NodeRef from, std::vector<bool>& seen_pci) {
  if (node.type == kCpu) return node;
  if (node.type == kPci) {
    if (seen_pci[node.index]) return {};
    seen_pci[node.index] = true;
  }
  for (const Link& link : system.at(node).links) {
    if (link.type != kLinkPci || link.remote == from) continue;
    if (link.remote.type != kPci && link.remote.type != kCpu) continue;
    const NodeRef cpu = find_cpu(system, link.remote, node, seen_pci);
    if (cpu.valid()) return cpu;
  }
  return {};
}

}  // namespace

void sort_system(TopoSystem& system) {
  UplinkSorter sorter(system);
  for (int c = 0; c < system.count(kCpu); ++c) sorter.visit({kCpu, c}, {});
}

NodeRef find_local_cpu_by_pci(const TopoSystem& system, NodeRef node) {
  std::vector<bool> seen_pci(system.nodes[kPci].size(), false);
  return find_cpu(system, node, {}, seen_pci);
}

}  // namespace linkscope::topo
