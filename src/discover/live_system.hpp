#pragma once
#include <string>
#include <vector>

#include "core/environment.hpp"
#include "discover/live_discovery.hpp"
#include "discover/live_model_check.hpp"
#include "discover/path_compare.hpp"
#include "model/run.hpp"

namespace linkscope::discover {

model::PathComparison path_comparison_model(const PathComparison& comparison);

// The whole `system` section of `linkscope topo`: the facts (system_model) plus the synthesized topology, each GPU's
// NICs, what NCCL built itself, and how long discovery took (docs/run-schema.md).
model::System live_system(const LiveDiscovery& live, const LiveModelCheck& check);

// The Run of a live `linkscope topo`: system, model (of the synthesized XML), relevant environment, and per-item
// errors (facts that failed, a refused model, a failing NCCL child).
model::Run topo_live_run(const LiveDiscovery& live, const LiveModelCheck& check, const Environment& env,
                         const std::vector<std::string>& argv);

}  // namespace linkscope::discover
