#pragma once
#include <optional>

#include <nlohmann/json.hpp>

#include "core/environment.hpp"
#include "core/run.hpp"
#include "discover/live_discovery.hpp"
#include "discover/live_model_check.hpp"
#include "discover/path_compare.hpp"

namespace linkscope::discover {

nlohmann::json path_comparison_to_json(const PathComparison& comparison);

// The whole `system` section of `linkscope topo`: the facts (system_facts_to_json) plus
// "synthesized_topology", "nccl_topology" and "discovery_seconds" (docs/run-schema.md).
nlohmann::json live_discovery_to_json(const LiveDiscovery& live, const LiveModelCheck& check);

// The Run document of a live `linkscope topo`: system, model (of the synthesized XML), relevant environment,
// and per-item errors (facts that failed, a refused model, a failing NCCL child).
RunDocument topo_live_run(const LiveDiscovery& live, const LiveModelCheck& check, const Environment& env,
                          const std::vector<std::string>& argv);

}  // namespace linkscope::discover
