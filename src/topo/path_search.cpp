#include "topo/path_search.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "topo/graph_edit.hpp"
#include "topo/nccl_format.hpp"

namespace linkscope::topo {

namespace {

// Why NCCL's BFS stops: it always finds the reverse of a link it used, except for the two one-way links of
// the graph, a GPU->GPU <nvlink> not listed by the other GPU and a <pcilink>.
[[noreturn]] void fail_reverse_path(const TopoSystem& system, NodeRef remote, NodeRef node, const Link& link,
                                    const BfsRules& rules) {
  const auto number = [&](int type) { return type == kDev ? rules.nccl_dev_type : type; };
  const std::string nccl = fmt::format("Failed to find reverse path from remNode {}/{:x} nlinks {} to node {}/{:x}",
                                       number(remote.type), system.at(remote).id, system.at(remote).links.size(),
                                       number(node.type), system.at(node).id);
  // A DEV (NCCL 2.30) is named by its first GPU, which holds the NVLink facts.
  const NodeRef from_gpu = system.first_gpu_on(node);
  const NodeRef to_gpu = system.first_gpu_on(remote);
  const Node& from = system.at(from_gpu);
  const Node& to = system.at(to_gpu);
  const std::string from_id = nccl_node_id(system, from_gpu);
  const std::string to_id = nccl_node_id(system, to_gpu);
  if (link.type == kLinkNvl && from_gpu.type == kGpu && to_gpu.type == kGpu) {
    long line = 0;
    for (const auto& fact : from.nvlinks) {
      if (fact.remote_type == kGpu && fact.remote_id == system.at(remote).id) line = fact.line;
    }
    throw ModelError(line, fmt::format("one-sided NVLink: {} ({}) lists an NVLink to {} ({}), but {} lists none "
                                       "back; NCCL {} stops here ({})",
                                       from_id, from.xml.busid, to_id, to.xml.busid, to_id, rules.nccl_version, nccl));
  }
  if (link.type == kLinkLoc) {
    throw ModelError(from.xml.line, fmt::format("one-sided <pcilink>: {} links to {}, but {} has no <pcilink> back; "
                                                "NCCL {} stops here ({})",
                                                from_id, to_id, to_id, rules.nccl_version, nccl));
  }
  throw ModelError(0, fmt::format("no reverse link from {} to {}; NCCL {} stops here ({})", to_id, from_id,
                                  rules.nccl_version, nccl));
}

// The node that relays NVLink hops (a GPU; since NCCL 2.30 a DEV) and how many hops from the base it may be.
struct Relay {
  int type = kGpu;
  NodeRef base_device;  // the DEV the base sits on (the base itself when it is no GPU)
  int max_count = 1;
};

Relay relay_for(const TopoSystem& system, NodeRef base, const BfsRules& rules) {
  if (!rules.device_nodes) return {};
  // A GPU base reaches its own DEV first, so the NVLink relay may sit one hop further away.
  if (base.type == kGpu) return {kDev, system.device_of(base.index), 2};
  return {kDev, base, 1};
}

// Whether the BFS may leave `node` over `link`: through a GPU (a DEV since NCCL 2.30) other than the base's only
// one NVLink hop to another relay near the base, and since 2.30 from a DEV down into its own GPUs.
bool may_leave(NodeRef node, NodeRef base, const Link& link, const Path& p, const Relay& relay, bool nvb_disable) {
  if (node.type != relay.type) return true;
  if (relay.type == kGpu ? node == base : node == relay.base_device) return true;
  if (relay.type == kDev && link.type == kLinkLoc && link.remote.type == kGpu) return true;
  return !nvb_disable && link.type == kLinkNvl && link.remote.type == relay.type && p.count <= relay.max_count;
}

int hop_type(const Link& link, NodeRef node, NodeRef remote, const Path& p, int q_count, const Relay& relay) {
  int type = link.type == kLinkNet ? kLinkLoc : link.type;
  if (node.type == kPci && remote.type == kPci) type = kPathPxb;
  if (link.type == kLinkPci && (node.type == kCpu || remote.type == kCpu)) type = kPathPhb;
  if (node.type == relay.type && p.type == kPathNvl && type == kPathNvl && q_count > relay.max_count) type = kPathNvb;
  return type;
}

}  // namespace

void set_paths(TopoSystem& system, NodeRef base, const BfsRules& rules) {
  const int type = base.type;
  const Relay relay = relay_for(system, base, rules);
  // Quirk Q1: the slot is that of the FIRST node with the base's id.
  const int slot = system.index_of(type, system.at(base).id);
  const auto targets = static_cast<std::size_t>(system.count(type));
  const auto ensure = [&](NodeRef node) -> std::vector<Path>& {
    auto& array = system.at(node).paths[type];
    if (array.empty()) array.assign(targets, Path{});
    return array;
  };
  {
    Path& self = ensure(base)[slot];
    self.hops = -1;
    self.count = 0;
    self.bw = kLocBw;
    self.type = kPathLoc;
  }

  std::array<std::vector<int>, kNodeTypeCount> queued;
  for (int t = 0; t < kNodeTypeCount; ++t) queued[t].assign(system.nodes[t].size(), -1);
  std::vector<NodeRef> frontier{base};
  std::vector<NodeRef> next;
  for (int level = 0; !frontier.empty(); ++level) {
    next.clear();
    for (const NodeRef node : frontier) {
      const Path p = system.at(node).paths[type][slot];
      for (std::size_t l = 0; l < system.at(node).links.size(); ++l) {
        const Link link = system.at(node).links[l];
        const NodeRef remote = link.remote;
        Path& q = ensure(remote)[slot];  // the array exists even when the link is skipped below
        const float bw = std::min(p.bw, link.bw);
        if (!may_leave(node, base, link, p, relay, rules.nvb_disable)) continue;
        const int new_type = std::max(p.type, hop_type(link, node, remote, p, p.count + 1, relay));
        if (rules.type_first) {
          // NCCL 2.30.7: a better path type wins, then within a type a larger bottleneck, then fewer hops.
          const bool better = new_type < q.type || (new_type == q.type && q.bw < bw) ||
                              (new_type == q.type && q.bw == bw && q.count > p.count + 1);
          if (!better) continue;
        } else if (!((q.bw == 0.0f || q.count > p.count) && q.bw < bw)) {
          continue;  // fewest hops first; within a level only a strictly larger bottleneck replaces a path
        }
        Link first;
        bool found = false;
        for (const Link& back : system.at(remote).links) {
          if (back.remote == node && back.type == link.type) {
            first = back;
            found = true;
            break;
          }
        }
        if (!found) {
          if (q.hops < 0) fail_reverse_path(system, remote, node, link, rules);
          first = system.hop_cells[q.hops].link;  // NCCL keeps the old first hop
        }
        system.hop_cells.push_back({first, p.count > 0 ? p.hops : -1});
        Path& updated = system.at(remote).paths[type][slot];
        updated.hops = static_cast<int>(system.hop_cells.size()) - 1;
        updated.count = p.count + 1;
        updated.bw = bw;
        updated.type = new_type;
        if (queued[remote.type][remote.index] != level) {
          queued[remote.type][remote.index] = level;
          next.push_back(remote);
        }
      }
    }
    std::swap(frontier, next);
  }
}

void compute_bfs_paths(TopoSystem& system, const BfsRules& rules) {
  for (auto& list : system.nodes) {
    for (auto& node : list) {
      for (auto& array : node.paths) array.clear();
    }
  }
  system.hop_cells.clear();
  for (const int type : {kCpu, kDev, kGpu, kNet, kNvs}) {
    for (int i = 0; i < system.count(type); ++i) set_paths(system, {type, i}, rules);
  }
}

const Path& path_between(const TopoSystem& system, NodeRef from, NodeRef to) {
  static const Path kNone{};
  const auto& array = system.at(from).paths[to.type];
  if (to.index < 0 || static_cast<std::size_t>(to.index) >= array.size()) return kNone;
  return array[to.index];
}

Path& mutable_path(TopoSystem& system, NodeRef from, NodeRef to) {
  auto& array = system.at(from).paths[to.type];
  if (array.empty()) array.assign(system.nodes[to.type].size(), Path{});
  return array[to.index];
}

int merge_path_type(int a, int b) {
  const int high = std::max(a, b);
  const int low = std::min(a, b);
  return high == kPathPhb && low == kPathC2c ? kPathP2c : high;
}

void inter_step(TopoSystem& system, NodeRef via, NodeRef from, NodeRef to) {
  const Path first = path_between(system, from, via);
  const Path second = path_between(system, via, to);
  // Copy the first part's hops, then share the second part's (hop cells are never modified).
  int head = second.count > 0 ? second.hops : -1;
  std::vector<Link> prefix;
  prefix.reserve(static_cast<std::size_t>(first.count));
  for (int cell = first.hops; cell >= 0 && static_cast<int>(prefix.size()) < first.count;
       cell = system.hop_cells[cell].next) {
    prefix.push_back(system.hop_cells[cell].link);
  }
  for (auto it = prefix.rbegin(); it != prefix.rend(); ++it) {
    system.hop_cells.push_back({*it, head});
    head = static_cast<int>(system.hop_cells.size()) - 1;
  }
  Path& path = mutable_path(system, from, to);
  path.hops = head;
  path.count = first.count + second.count;
  path.type = via.type == kGpu ? kPathPxn : merge_path_type(first.type, second.type);
  path.bw = std::min(first.bw, second.bw);
}

int local_cpu(const TopoSystem& system, int gpu_index) {
  const auto& array = system.nodes[kGpu][gpu_index].paths[kCpu];
  int best = -1;
  int best_hops = 0;
  for (std::size_t c = 0; c < array.size(); ++c) {
    const int hops = array[c].count;
    if (hops > 0 && (best_hops == 0 || hops < best_hops)) {
      best = static_cast<int>(c);
      best_hops = hops;
    }
  }
  if (best < 0) {
    throw ModelError(0, fmt::format("no CPU reachable from {}; NCCL stops here (Error : could not find CPU "
                                    "close to GPU {})",
                                    nccl_node_id(system, {kGpu, gpu_index}), gpu_index));
  }
  return best;
}

std::vector<int> best_targets(const TopoSystem& system, NodeRef source, int target_type) {
  std::vector<int> best;
  const auto& array = system.at(source).paths[target_type];
  float max_bw = 0.0f;
  int min_type = kPathDis;
  for (std::size_t i = 0; i < array.size(); ++i) {
    const Path& path = array[i];
    if (path.bw > max_bw || (path.bw == max_bw && path.type < min_type)) {
      max_bw = path.bw;
      min_type = path.type;
      best.clear();
    }
    if (path.bw == max_bw && path.type == min_type) best.push_back(static_cast<int>(i));
  }
  return best;
}

int rank_of_device(const TopoSystem& system, int dev) {
  for (const Node& gpu : system.nodes[kGpu]) {
    if (gpu.dev == dev) return gpu.rank;
  }
  return -1;
}

int pxn_intermediate_rank(const TopoSystem& system, int gpu_index, int net_index) {
  const Path& path = path_between(system, {kGpu, gpu_index}, {kNet, net_index});
  const Node& gpu = system.nodes[kGpu][gpu_index];
  if (path.type != kPathPxn) return gpu.rank;
  const std::vector<Link> hops = system.hops_of(path);
  // Past the NVSwitches the path enters the relay: a GPU, or since NCCL 2.30 (whose path starts GPU-DEV) a DEV,
  // whose first GPU link names it.
  const bool devices = !hops.empty() && hops.front().remote.type == kDev;
  std::size_t i = devices ? 1 : 0;
  while (i + 1 < hops.size() && hops[i].remote.type == kNvs) ++i;
  NodeRef node = i < hops.size() ? hops[i].remote : NodeRef{kNvs, -1};
  if (devices && node.type == kDev) node = system.first_gpu_on(node);
  if (node.type != kGpu) {
    throw ModelError(0, fmt::format("NCCL stops here: Could not find intermediate GPU between GPU rank {} and NIC "
                                    "{:x}",
                                    gpu.rank, system.nodes[kNet][net_index].id));
  }
  return devices ? rank_of_device(system, system.at(node).dev) : system.at(node).rank;
}

}  // namespace linkscope::topo
