#include "topo/search_links.hpp"

#include <cmath>

#include <fmt/format.h>

#include "topo/nccl_format.hpp"

namespace linkscope::topo {

namespace {

// The index of the first link of `node` to `remote` with `type`, -1 if none (NCCL findRevLink).
int link_index(const Node& node, NodeRef remote, int type) {
  for (std::size_t l = 0; l < node.links.size(); ++l) {
    if (node.links[l].remote == remote && node.links[l].type == type) return static_cast<int>(l);
  }
  return -1;
}

// SUB_ROUND (search.cc): NCCL rounds every charge to 1/1000 GB/s "since manipulating floats often results in
// rounding errors".
void subtract_rounded(float& left, float charged) { left = std::roundf((left - charged) * 1000) / 1000; }

}  // namespace

SearchLinks::SearchLinks(const TopoSystem& system) : gpus_(system.count(kGpu)) {
  std::array<std::vector<int>, kNodeTypeCount> first_link;
  int links = 0;
  for (int type = 0; type < kNodeTypeCount; ++type) {
    for (const Node& node : system.nodes[type]) {
      first_link[type].push_back(links);
      for (const Link& link : node.links) {
        bw_.push_back(link.bw);
        ++links;
      }
    }
  }
  paths_.resize(static_cast<std::size_t>(gpus_ * gpus_));
  for (int from = 0; from < gpus_; ++from) {
    for (int to = 0; to < gpus_; ++to) {
      const NodeRef start{kGpu, from};
      const auto& array = system.at(start).paths[kGpu];
      if (static_cast<std::size_t>(to) >= array.size()) continue;  // no path: stays DIS
      const Path& path = array[to];
      SearchPath& plan = paths_[from * gpus_ + to];
      plan.type = path.type;
      plan.count = path.count;
      plan.bw = path.bw;
      plan.first_hop = static_cast<int>(hops_.size());
      NodeRef at = start;
      for (const Link& hop : system.hops_of(path)) {
        const Node& node = system.at(at);
        const int l = link_index(node, hop.remote, hop.type);
        if (l < 0) {
          error_ = fmt::format("the path {} -> {} crosses a link that is not in the graph",
                               nccl_node_id(system, start), nccl_node_id(system, {kGpu, to}));
          return;
        }
        SearchHop step;
        step.link = first_link[at.type][at.index] + l;
        step.pci = hop.type == kLinkPci;
        const Node& remote = system.at(hop.remote);
        if (hop.remote.type == kCpu) {
          if (path.type == kPathPhb && remote.arch == kArchX86 && remote.vendor == kVendorIntel) {
            plan.intel_overhead = true;
          }
          if (remote.arch == kArchPower && hop.type == kLinkNvl) {
            const int back = link_index(remote, at, hop.type);
            if (back < 0) {
              error_ = fmt::format("no reverse link from {} to {}", nccl_node_id(system, hop.remote),
                                   nccl_node_id(system, at));
              return;
            }
            step.reverse_link = first_link[kCpu][hop.remote.index] + back;
          }
        }
        hops_.push_back(step);
        at = hop.remote;
      }
      if (static_cast<int>(hops_.size()) - plan.first_hop != plan.count) {
        error_ = fmt::format("the path {} -> {} has {} hops for a count of {}", nccl_node_id(system, start),
                             nccl_node_id(system, {kGpu, to}), static_cast<int>(hops_.size()) - plan.first_hop,
                             plan.count);
        return;
      }
    }
  }
}

int SearchLinks::charge(const SearchPath& path, int max_steps, float bw) {
  // INTEL_P2P_OVERHEAD (topo.h): Intel root complexes turn GPU P2P traffic into 64-byte TLPs.
  const float pci_bw = path.intel_overhead ? bw * 6 / 5 : bw;
  for (int step = 0; step < max_steps; ++step) {
    const SearchHop& hop = hops_[path.first_hop + step];
    const float forward = hop.pci ? pci_bw : bw;
    const float reverse = hop.reverse_link >= 0 ? forward : 0.0f;
    float& left = bw_[hop.link];
    if (left < forward || (reverse != 0.0f && bw_[hop.reverse_link] < reverse)) return step;
    subtract_rounded(left, forward);
    if (reverse != 0.0f) subtract_rounded(bw_[hop.reverse_link], reverse);
  }
  return max_steps;
}

}  // namespace linkscope::topo
