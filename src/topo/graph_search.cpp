#include "topo/graph_search.hpp"

#include <algorithm>
#include <iterator>

#include "topo/channel_search.hpp"

namespace linkscope::topo {

namespace {

// Per-channel speeds (GB/s) the one-node search tries, by the lowest GPU generation (search.cc speedArrayIntra,
// sm90SpeedArrayIntra, sm100SpeedArrayIntra).
constexpr float kSpeeds[] = {40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0};
constexpr float kSpeedsSm90[] = {60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0};
constexpr float kSpeedsSm100[] = {90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0};
constexpr float kSpeedsSm100With45[] = {90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0};

// Search budgets in steps (search.cc NCCL_SEARCH_*, "try to keep all searches within one second"): NCCL counts
// calls of ncclTopoSearchRecGpu, not time, so the search is deterministic.
constexpr int64_t kGlobalTimeout = int64_t{1} << 19;
constexpr int kTimeout = 1 << 14;
constexpr int kTimeoutTree = 1 << 14;
constexpr int kTimeoutSameChannels = 1 << 8;

struct SpeedTable {
  const float* speeds;
  int count;
};

SpeedTable speeds_for(int cc_min, const ModelledVersion& version) {
  if (cc_min >= 100 && version.has(NcclChange::kSm100Speeds45And80)) {
    return {kSpeedsSm100With45, static_cast<int>(std::size(kSpeedsSm100With45))};
  }
  if (cc_min >= 100) return {kSpeedsSm100, static_cast<int>(std::size(kSpeedsSm100))};
  if (cc_min >= 90) return {kSpeedsSm90, static_cast<int>(std::size(kSpeedsSm90))};
  return {kSpeeds, static_cast<int>(std::size(kSpeeds))};
}

// ncclTopoGetGpuMinPath / ncclTopoGetGpuMaxPath over GPU pairs.
int gpu_pair_type(const SearchLinks& links, bool worst) {
  int type = worst ? kPathLoc : kPathSys;
  for (int a = 0; a < links.gpu_count(); ++a) {
    for (int b = 0; b < links.gpu_count(); ++b) {
      if (a == b) continue;
      const int t = links.gpu_path(a, b).type;
      type = worst ? std::max(type, t) : std::min(type, t);
    }
  }
  return type;
}

// ncclTopoSplitNvLink: exactly two NVLink domains (of 2+ GPUs), e.g. two sockets each with an NVLink island.
bool split_nvlink(const SearchLinks& links) {
  const int n = links.gpu_count();
  std::vector<int> domain(static_cast<std::size_t>(n));
  for (int g = 0; g < n; ++g) domain[g] = g;
  for (int g = 0; g < n; ++g) {
    for (int p = g + 1; p < n; ++p) {
      if (links.gpu_path(g, p).type == kPathNvl) domain[p] = domain[g];
    }
  }
  std::vector<int> size(static_cast<std::size_t>(n), 0);
  for (int g = 0; g < n; ++g) ++size[domain[static_cast<std::size_t>(g)]];
  return std::count_if(size.begin(), size.end(), [](int s) { return s > 1; }) == 2;
}

// ncclTopoDupChannels: double the channels (each at half the bandwidth) unless they are slow, or there are already
// more than 4 of them at under 50 GB/s on sm > 80.
void duplicate_channels(WorkGraph& graph, int cc_min, int gpus) {
  if (graph.n_channels == 0) return;
  if (graph.bw_intra < 25.0) return;
  if (cc_min > 80 && graph.bw_intra < 50.0 && graph.n_channels > 4) return;
  const int channels = std::min(graph.n_channels * 2, graph.max_channels);
  std::copy_n(graph.intra.begin(), (channels - graph.n_channels) * gpus,
              graph.intra.begin() + graph.n_channels * gpus);
  const auto factor = static_cast<float>(div_up(channels, graph.n_channels));
  graph.bw_intra /= factor;
  graph.bw_inter /= factor;
  graph.n_channels = channels;
}

GraphSearchResult to_result(const WorkGraph& graph, int gpus, bool fell_back, int64_t steps) {
  GraphSearchResult result;
  result.id = graph.id;
  result.pattern = graph.pattern;
  result.cross_nic = graph.cross_nic;
  result.n_channels = graph.n_channels;
  result.bw_intra = graph.bw_intra;
  result.bw_inter = graph.bw_inter;
  result.type_intra = graph.type_intra;
  result.type_inter = graph.type_inter;
  result.same_channels = graph.same_channels;
  result.n_hops = graph.n_hops;
  result.fell_back = fell_back;
  result.steps = steps;
  for (int c = 0; c < graph.n_channels; ++c) {
    const auto first = graph.intra.begin() + c * gpus;
    result.channels.emplace_back(first, first + gpus);
  }
  return result;
}

}  // namespace

SearchSystemFacts search_facts(const TopoSystem& system, float max_bw, float total_bw, int64_t cross_nic_param,
                               const ModelledVersion& version) {
  SearchSystemFacts facts;
  facts.version = version;
  for (const Node& gpu : system.nodes[kGpu]) {
    facts.gpu_ranks.push_back(gpu.rank);
    facts.gpu_sm.push_back(gpu.sm);
  }
  facts.device_count = system.count(kDev) > 0 ? system.count(kDev) : system.count(kGpu);
  facts.net_count = system.count(kNet);
  facts.nvs_count = system.count(kNvs);
  if (system.count(kCpu) > 0) {
    facts.cpu_arch = system.nodes[kCpu][0].arch;
    facts.cpu_vendor = system.nodes[kCpu][0].vendor;
  }
  facts.max_bw = max_bw;
  facts.total_bw = total_bw;
  facts.cross_nic_param = cross_nic_param;
  return facts;
}

GraphSearchResult compute_graph(SearchLinks& links, const SearchSystemFacts& facts, const GraphRequest& request) {
  const int gpus = links.gpu_count();
  WorkGraph graph;  // NCCL's output graph: the best solution so far
  graph.id = request.id;
  graph.pattern = request.pattern;
  graph.min_channels = request.min_channels;
  graph.max_channels = request.max_channels;
  graph.intra.assign(static_cast<std::size_t>(kMaxChannels * gpus), 0);

  const bool crosses_nics = facts.net_count > 1 && (request.pattern == kPatternRing ||
                                                    request.pattern == kPatternBalancedTree ||
                                                    request.pattern == kPatternSplitTree);
  const int64_t cross_nic = crosses_nics ? facts.cross_nic_param : 0;
  graph.cross_nic = cross_nic == 1 ? 1 : 0;
  const int min_type = gpus > 1 ? gpu_pair_type(links, false) : kPathLoc;
  const int max_type = gpus > 1 ? gpu_pair_type(links, true) : kPathSys;
  graph.type_intra = min_type;
  graph.type_inter = kPathPix;
  const int try_same_channels = 1;  // 0 only for NVLS
  graph.same_channels = try_same_channels;
  const int cc_min = gpus > 0 ? *std::min_element(facts.gpu_sm.begin(), facts.gpu_sm.end()) : 0;
  const bool amd_sys = facts.cpu_arch == kArchX86 && facts.cpu_vendor == kVendorAmd;

  if (gpus == 1 && graph.pattern != kPatternRing) graph.pattern = kPatternTree;
  // Two NVLink islands joined by a slower link: trees will do better and need 2 channels, and so must rings.
  if (graph.pattern == kPatternRing && split_nvlink(links) && graph.max_channels >= 2 && graph.min_channels == 1) {
    graph.min_channels = 2;
  }

  WorkGraph tmp = graph;  // the graph being searched
  const SpeedTable table = speeds_for(cc_min, facts.version);
  const float* speeds = table.speeds;
  int pass = 1;
  int speed = 0;
  const float max_bw = facts.max_bw;
  float total_bw = facts.total_bw;
  // A tree's GPUs send and receive at once: their link can carry n/(n-1) of a ring's traffic (n physical GPUs).
  const int devices = facts.device_count;
  if (devices > 1 && graph.pattern != kPatternRing) total_bw *= devices * 1.0 / (devices - 1);
  while ((speeds[speed] > max_bw || speeds[speed] * static_cast<float>(graph.min_channels) > total_bw) &&
         speed < table.count - 1) {
    ++speed;
  }
  tmp.bw_intra = tmp.bw_inter = speeds[speed];
  int64_t global_timeout = kGlobalTimeout;
  int64_t steps = 0;

  for (;;) {
    int time = tmp.same_channels ? kTimeoutSameChannels : tmp.pattern == kPatternTree ? kTimeoutTree : kTimeout;
    tmp.n_channels = 0;
    global_timeout -= time;
    steps += ChannelSearch(links, facts, tmp, graph, time).run();

    bool done = time == -1 || static_cast<float>(graph.n_channels) * graph.bw_inter >= facts.total_bw;
    if (!done && pass == 1) {
      // First pass, no perfect solution yet: relax one constraint after the other, then lower the speed.
      if (tmp.same_channels == 1 && !(amd_sys && tmp.type_intra == kPathSys)) {
        tmp.same_channels = 0;  // different orders per channel (not through AMD CPUs)
        continue;
      }
      tmp.same_channels = try_same_channels;
      if (time != -1) {
        global_timeout += time;
      } else {
        global_timeout = kGlobalTimeout;
      }
      if (global_timeout < 0 && graph.n_channels) {
        done = true;
      } else {
        if (cc_min >= 90 && tmp.pattern == kPatternBalancedTree) {
          tmp.pattern = kPatternTree;  // a simpler tree
          continue;
        }
        tmp.pattern = graph.pattern;
        if (tmp.type_intra < max_type && (graph.n_channels == 0 || tmp.type_intra < graph.type_intra)) {
          tmp.type_intra += 1;  // allow a worse path type
          if (tmp.type_intra < kPathDis) continue;
        }
        tmp.type_intra = min_type;
        if (cross_nic == 2 && tmp.cross_nic == 0 &&
            (graph.pattern == kPatternRing || graph.pattern == kPatternBalancedTree)) {
          tmp.cross_nic = 2;
          continue;
        }
        tmp.cross_nic = cross_nic == 1 ? 1 : 0;
        if (speed < table.count - 1 &&
            (graph.n_channels == 0 || speeds[speed + 1] / graph.bw_inter > .49)) {
          tmp.bw_inter = tmp.bw_intra = speeds[++speed];
          continue;
        }
        speed = 0;
        while (speeds[speed] > max_bw && speed < table.count - 1) ++speed;
        tmp.bw_intra = tmp.bw_inter = speeds[speed];
      }
    }
    // done: start from the solution, duplicated, and see whether a higher speed also works (pass 2).
    if (pass == 1) {
      time = -1;
      duplicate_channels(graph, cc_min, gpus);
      tmp = graph;
      speed = 0;
      while (speeds[speed] > graph.bw_inter && speed < table.count - 1) ++speed;
      tmp.bw_intra = tmp.bw_inter = speeds[speed];
      tmp.min_channels = graph.n_channels;
      pass = 2;
    }
    if (time != 0 && speed > 0) {
      if (graph.pattern == kPatternRing) {
        tmp.bw_intra = tmp.bw_inter = speeds[--speed];
        continue;
      }
      if (tmp.bw_intra == graph.bw_intra && tmp.bw_intra < tmp.bw_inter * 2) {
        tmp.bw_intra = speeds[--speed];  // trees: a faster intra-node part
        continue;
      }
    }
    break;
  }

  if (graph.n_channels == 0) {
    // "Could not find a path for pattern %d, falling back to simple order"
    for (int g = 0; g < gpus; ++g) graph.intra[g] = facts.gpu_ranks[g];
    graph.bw_intra = graph.bw_inter = 0.1f;
    graph.type_intra = graph.type_inter = kPathSys;
    // Since 2.29 the fallback asks for the first GPU's NET, and on a node without one NCCL stops there.
    if (facts.version.has(NcclChange::kFallbackGraphSelectsNets) && facts.net_count == 0) {
      GraphSearchResult failed = to_result(graph, gpus, true, steps);
      failed.error = "Could not find any local path from gpu 0 to net.";
      return failed;
    }
    graph.n_channels = 1;
    return to_result(graph, gpus, true, steps);
  }
  return to_result(graph, gpus, false, steps);
}

}  // namespace linkscope::topo
