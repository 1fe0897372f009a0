#pragma once
#include <optional>

#include <nlohmann/json.hpp>

#include "discover/live_discovery.hpp"
#include "discover/path_compare.hpp"

namespace linkscope::discover {

// NCCL's own view and how linkscope's model of the synthesized XML compares with it.
struct NcclComparisons {
  std::optional<PathComparison> versus_nccl_log;   // our model's paths vs the paths NCCL printed
  std::optional<PathComparison> versus_nccl_dump;  // our model of our XML vs our model of NCCL's dump
};

nlohmann::json path_comparison_to_json(const PathComparison& comparison);

// The whole `system` section of `linkscope topo`: the facts (system_facts_to_json) plus
// "synthesized_topology", "nccl_topology" and "discovery_seconds" (docs/run-schema.md).
nlohmann::json live_discovery_to_json(const LiveDiscovery& live, const NcclComparisons& comparisons);

}  // namespace linkscope::discover
