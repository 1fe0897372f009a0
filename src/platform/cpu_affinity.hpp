#pragma once
#include <string>
#include <vector>

namespace linkscope::platform {

// NUMA nodes that have CPUs, from <sysfs_root>/devices/system/node/node*/cpulist. A kernel without NUMA
// support (no such folder) counts as one node 0 holding the CPUs this process may use.
std::vector<int> numa_nodes_with_cpus(const std::string& sysfs_root = "/sys");

// The CPUs of NUMA node `node`; throws UsageError naming the nodes that exist when it has none.
std::vector<int> numa_node_cpus(int node, const std::string& sysfs_root = "/sys");

// CPUs the calling thread may run on (sched_getaffinity).
std::vector<int> current_thread_cpus();

// Binds the calling thread (and threads it creates later, e.g. CUDA's) to `cpus` (sched_setaffinity).
// Throws UsageError when none of them is usable (e.g. outside a container's cpuset).
void bind_current_thread(const std::vector<int>& cpus);

// Binds for the scope and restores the previous CPU set afterwards.
class ScopedCpuBinding {
 public:
  explicit ScopedCpuBinding(const std::vector<int>& cpus);
  ~ScopedCpuBinding();
  ScopedCpuBinding(const ScopedCpuBinding&) = delete;
  ScopedCpuBinding& operator=(const ScopedCpuBinding&) = delete;

 private:
  std::vector<int> previous_;
};

}  // namespace linkscope::platform
