#include "topo/bcm_flatten.hpp"

#include <vector>

#include "topo/graph_edit.hpp"

namespace linkscope::topo {

int broadcom_switch_generation(uint64_t device, int level) {
  const uint64_t masked = device & ~0xfffULL;
  if (masked == 0x1000c0101000a000ULL) return 4;
  if (masked == 0x1000c03010000000ULL + static_cast<uint64_t>(level) * 0x1000ULL) return 5;
  return 0;
}

void flatten_broadcom_switches(TopoSystem& system) {
  int s = 0;
  while (s < system.count(kPci)) {
    const int generation = broadcom_switch_generation(system.nodes[kPci][s].device, 0);
    if (generation == 0) {
      ++s;
      continue;
    }
    // Nodes are tracked by index, not by id: NCCL holds pointers, and a malformed file may give two switches the
    // same bus id (looking a node up by id would then find the wrong one and never mark the top switch).
    NodeRef top{kPci, s};
    // Take the links to same-generation sub-switches off the top switch.
    std::vector<int> subs;
    auto& top_links = system.at(top).links;
    for (std::size_t l = 0; l < top_links.size();) {
      const NodeRef sub = top_links[l].remote;
      if (sub.type == kPci && sub != top && broadcom_switch_generation(system.at(sub).device, 1) == generation) {
        subs.push_back(sub.index);
        top_links.erase(top_links.begin() + static_cast<std::ptrdiff_t>(l));
      } else {
        ++l;
      }
    }
    for (std::size_t i = 0; i < subs.size(); ++i) {
      const NodeRef sub{kPci, subs[i]};
      for (const Link& link : std::vector<Link>(system.at(sub).links)) {
        if (link.remote == top) continue;
        // Appended without re-sorting: the grandchildren keep their own bandwidth and order.
        if (static_cast<int>(system.at(top).links.size()) == kMaxLinksPerNode) {
          throw ModelError(system.at(top).xml.line, "Broadcom switch flattening: too many links on one switch");
        }
        system.at(top).links.push_back(link);
        auto& remote_links = system.at(link.remote).links;
        for (auto& back : remote_links) {
          if (back.remote == sub) {
            back.remote = top;
            break;
          }
        }
      }
      remove_node(system, sub);
      // Later PCI nodes moved down one index, the top switch and the subs still to remove among them.
      if (sub.index < top.index) --top.index;
      for (std::size_t j = i + 1; j < subs.size(); ++j) {
        if (subs[j] > sub.index) --subs[j];
      }
    }
    // Never matches again: the subsystem bits are now 0xffff. NCCL restarts the scan from the beginning.
    system.nodes[kPci][top.index].device |= 0xffffULL;
    s = 0;
  }
}

}  // namespace linkscope::topo
