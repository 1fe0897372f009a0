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
    NodeRef top{kPci, s};
    const int64_t top_id = system.at(top).id;
    // Take the links to same-generation sub-switches off the top switch, remembering the subs by id.
    std::vector<int64_t> sub_ids;
    auto& top_links = system.at(top).links;
    for (std::size_t l = 0; l < top_links.size();) {
      const NodeRef sub = top_links[l].remote;
      if (sub.type == kPci && broadcom_switch_generation(system.at(sub).device, 1) == generation) {
        sub_ids.push_back(system.at(sub).id);
        top_links.erase(top_links.begin() + static_cast<std::ptrdiff_t>(l));
      } else {
        ++l;
      }
    }
    for (const int64_t sub_id : sub_ids) {
      const int sub_index = system.index_of(kPci, sub_id);
      if (sub_index < 0) continue;
      const NodeRef sub{kPci, sub_index};
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
      // Later PCI nodes moved down one index; find the top switch again by id (NCCL's pointer stays valid
      // because only nodes after it move in a well-formed tree).
      const int top_index = system.index_of(kPci, top_id);
      if (top_index < 0) break;
      top = {kPci, top_index};
    }
    const int top_index = system.index_of(kPci, top_id);
    if (top_index >= 0) system.nodes[kPci][top_index].device |= 0xffffULL;
    // Never matches again: the subsystem bits are now 0xffff. NCCL restarts the scan from the beginning.
    s = 0;
  }
}

}  // namespace linkscope::topo
