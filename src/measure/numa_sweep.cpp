#include "measure/numa_sweep.hpp"

#include <fmt/format.h>

#include "discover/cpu_list.hpp"
#include "platform/cpu_affinity.hpp"

namespace linkscope::measure {

namespace {

std::vector<model::DeviceInfo> devices_of(const std::vector<plan::PatternPlan>& plans) {
  std::vector<plan::DirectedPair> edges;
  for (const auto& p : plans) {
    if (p.runnable) edges.insert(edges.end(), p.spec.edges.begin(), p.spec.edges.end());
  }
  std::vector<model::DeviceInfo> devices;
  for (int d : plan::devices_of(edges)) devices.push_back(describe_device(d));
  return devices;
}

}  // namespace

model::PatternRun run_pattern_set(PatternRequest request, bool numa_sweep, const ProgressCallback& progress,
                                 const std::string& sysfs_root) {
  model::PatternRun run;
  if (!numa_sweep) {
    run.patterns = run_patterns(request, progress);
    run.devices = devices_of(request.plans);
    run.config = to_json(request);
    return run;
  }
  const std::vector<int> nodes = platform::numa_nodes_with_cpus(sysfs_root);
  if (nodes.size() < 2) {
    run.notes.push_back(fmt::format("--numa-sweep: this machine has one NUMA node with CPUs (node {}); the patterns "
                                    "were measured once", nodes.empty() ? 0 : nodes.front()));
    if (progress) progress(run.notes.back());
    run.patterns = run_patterns(request, progress);
  } else {
    for (int node : nodes) {
      const auto cpus = platform::numa_node_cpus(node, sysfs_root);
      if (progress) progress(fmt::format("--numa-sweep: submitting from NUMA node {} (CPUs {})", node, format_cpu_list(cpus)));
      platform::ScopedCpuBinding binding(cpus);
      request.cpu_node = node;
      const auto results = run_patterns(request, progress);
      run.patterns.insert(run.patterns.end(), results.begin(), results.end());
    }
  }
  run.numa = model::summarize_numa_sweep(nodes, run.patterns);
  run.devices = devices_of(request.plans);
  run.config = to_json(request);
  return run;
}

}  // namespace linkscope::measure
