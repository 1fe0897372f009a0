#include "discover/numa_reader.hpp"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>
#include <stdexcept>

#include "discover/cpu_list.hpp"

namespace linkscope::discover {

namespace {

std::optional<int> node_number(const std::string& name) {
  if (name.size() <= 4 || name.rfind("node", 0) != 0) return std::nullopt;
  int value = 0;
  for (std::size_t i = 4; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9' || i > 10) return std::nullopt;
    value = value * 10 + (name[i] - '0');
  }
  return value;
}

std::optional<long long> mem_total_bytes(const std::string& meminfo) {
  // "Node 0 MemTotal:        5860848 kB"
  std::istringstream lines(meminfo);
  std::string line;
  while (std::getline(lines, line)) {
    const auto key = line.find("MemTotal:");
    if (key == std::string::npos) continue;
    const long long kib = std::strtoll(line.c_str() + key + 9, nullptr, 10);
    // A node of more than 2^40 KiB (1 EiB) is no memory the kernel reports; it would overflow the byte count.
    if (kib > 0 && kib < (1LL << 40)) return kib * 1024;
  }
  return std::nullopt;
}

}  // namespace

std::vector<NumaNode> read_numa_nodes(const SysfsRoot& root) {
  std::vector<NumaNode> nodes;
  for (const auto& name : root.list("/sys/devices/system/node")) {
    const auto id = node_number(name);
    if (!id) continue;
    const std::string dir = "/sys/devices/system/node/" + name;
    NumaNode node;
    node.id = *id;
    if (const auto cpulist = root.read_attribute(dir + "/cpulist")) {
      try {
        node.cpus = linkscope::parse_cpu_list(*cpulist);
      } catch (const std::invalid_argument&) {
        node.cpus.clear();  // a corrupt list is reported as "no CPUs", not a crash
      }
    }
    node.cpumap = root.read_attribute(dir + "/cpumap");
    if (const auto distance = root.read_attribute(dir + "/distance")) {
      std::istringstream in(*distance);
      int value = 0;
      while (in >> value) node.distances.push_back(value);
    }
    if (const auto meminfo = root.read_file(dir + "/meminfo")) node.memory_total_bytes = mem_total_bytes(*meminfo);
    nodes.push_back(std::move(node));
  }
  std::sort(nodes.begin(), nodes.end(), [](const NumaNode& a, const NumaNode& b) { return a.id < b.id; });
  return nodes;
}

std::vector<int> numa_nodes_of_cpus(const std::vector<NumaNode>& nodes, const std::vector<int>& cpus) {
  const std::set<int> wanted(cpus.begin(), cpus.end());
  std::vector<int> result;
  for (const auto& node : nodes) {
    const bool hit = std::any_of(node.cpus.begin(), node.cpus.end(), [&](int cpu) { return wanted.count(cpu) > 0; });
    if (hit) result.push_back(node.id);
  }
  return result;
}

}  // namespace linkscope::discover
