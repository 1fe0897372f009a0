#pragma once
#include <string>

#include "measure/pattern_engine.hpp"
#include "model/patterns.hpp"

namespace linkscope::measure {

// The pattern set once (bound to --cpu-node when given), or with numa_sweep once from each NUMA node that has
// CPUs: the submitting thread is bound to that node's CPUs (sysfs cpulist) for the whole set, then the
// previous binding is restored. With a single node the set is measured once and the sweep says so.
model::PatternRun run_pattern_set(PatternRequest request, bool numa_sweep, const ProgressCallback& progress,
                                 const std::string& sysfs_root = "/sys");

}  // namespace linkscope::measure
