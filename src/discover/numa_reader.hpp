#pragma once
#include <optional>
#include <string>
#include <vector>

#include "discover/sysfs_root.hpp"

namespace linkscope::discover {

// One NUMA node (/sys/devices/system/node/nodeN).
struct NumaNode {
  int id = 0;
  std::vector<int> cpus;               // from cpulist
  std::optional<std::string> cpumap;   // the hex mask NCCL copies into <cpu affinity=...>
  std::vector<int> distances;          // SLIT row, by node id order
  std::optional<long long> memory_total_bytes;
};

// NUMA nodes in id order; empty on a machine (or snapshot) without /sys/devices/system/node.
std::vector<NumaNode> read_numa_nodes(const SysfsRoot& root);

// The NUMA nodes whose CPUs intersect `cpus` (how nvidia-smi fills "NUMA Affinity").
std::vector<int> numa_nodes_of_cpus(const std::vector<NumaNode>& nodes, const std::vector<int>& cpus);

}  // namespace linkscope::discover
