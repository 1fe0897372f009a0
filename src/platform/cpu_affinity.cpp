#include "platform/cpu_affinity.hpp"

#include <sched.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "core/error.hpp"
#include "discover/cpu_list.hpp"

namespace linkscope::platform {

namespace {

std::string node_folder(const std::string& sysfs_root) { return sysfs_root + "/devices/system/node"; }

bool read_file(const std::string& path, std::string& text) {
  std::ifstream in(path);
  if (!in) return false;
  std::stringstream buffer;
  buffer << in.rdbuf();
  text = buffer.str();
  return true;
}

std::vector<int> cpus_of_node(int node, const std::string& sysfs_root) {
  std::string text;
  if (!read_file(fmt::format("{}/node{}/cpulist", node_folder(sysfs_root), node), text)) return {};
  try {
    return parse_cpu_list(text);
  } catch (const std::invalid_argument&) {
    return {};
  }
}

bool is_node_name(const std::string& name, int& node) {
  if (name.size() <= 4 || name.size() > 10 || name.compare(0, 4, "node") != 0) return false;
  int value = 0;
  for (std::size_t i = 4; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return false;
    value = value * 10 + (name[i] - '0');
  }
  node = value;
  return true;
}

std::string list_of(const std::vector<int>& ids) {
  std::string out;
  for (int id : ids) out += (out.empty() ? "" : ",") + std::to_string(id);
  return out;
}

}  // namespace

std::vector<int> numa_nodes_with_cpus(const std::string& sysfs_root) {
  std::error_code error;
  const std::filesystem::path folder(node_folder(sysfs_root));
  if (!std::filesystem::is_directory(folder, error)) return {0};
  std::vector<int> nodes;
  for (const auto& entry : std::filesystem::directory_iterator(folder, error)) {
    int node = 0;
    if (is_node_name(entry.path().filename().string(), node) && !cpus_of_node(node, sysfs_root).empty()) {
      nodes.push_back(node);
    }
  }
  std::sort(nodes.begin(), nodes.end());
  return nodes;
}

std::vector<int> numa_node_cpus(int node, const std::string& sysfs_root) {
  std::error_code error;
  if (!std::filesystem::is_directory(node_folder(sysfs_root), error) && node == 0) return current_thread_cpus();
  std::vector<int> cpus = node >= 0 ? cpus_of_node(node, sysfs_root) : std::vector<int>{};
  if (cpus.empty()) {
    throw UsageError(fmt::format("--cpu-node {}: no such NUMA node with CPUs (nodes with CPUs: {})", node,
                                 list_of(numa_nodes_with_cpus(sysfs_root))));
  }
  return cpus;
}

std::vector<int> current_thread_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) cpus.push_back(cpu);
  }
  return cpus;
}

void bind_current_thread(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int cpu : cpus) {
    if (cpu >= 0 && cpu < CPU_SETSIZE) CPU_SET(cpu, &set);
  }
  if (CPU_COUNT(&set) == 0 || sched_setaffinity(0, sizeof set, &set) != 0) {
    throw UsageError(fmt::format("cannot bind to CPUs {} (not allowed for this process: allowed are {})",
                                 format_cpu_list(cpus), format_cpu_list(current_thread_cpus())));
  }
}

ScopedCpuBinding::ScopedCpuBinding(const std::vector<int>& cpus) : previous_(current_thread_cpus()) {
  bind_current_thread(cpus);
}

ScopedCpuBinding::~ScopedCpuBinding() {
  if (previous_.empty()) return;
  try {
    bind_current_thread(previous_);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "linkscope: warning: could not restore the CPU binding: %s\n", e.what());
  }
}

}  // namespace linkscope::platform
