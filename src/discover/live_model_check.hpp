#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/environment.hpp"
#include "discover/live_discovery.hpp"
#include "discover/path_compare.hpp"
#include "model/topology_view.hpp"
#include "topo/nccl_versions.hpp"

namespace linkscope::discover {

// One topology XML through linkscope's NCCL model (src/topo), loaded once.
struct ModelSummary {
  std::vector<std::string> path_lines;  // NCCL's printed path lines
  model::TopologyView view;             // the Run's `model` section
  std::string nccl_log;                 // NCCL's GRAPH output for the XML
  std::string relation_matrix;          // the model in nvidia-smi terms (GPUn = rank)
};

// Throws InputError when NCCL would refuse the XML.
ModelSummary model_topology_xml(const std::string& xml, const std::string& source_name, const Environment& env,
                                const topo::ModelledVersion& version);

// The model of the synthesized XML, checked against NCCL's own topology.
struct LiveModelCheck {
  std::optional<ModelSummary> ours;  // empty: see `reason`
  std::string reason;                // why there is no model of the synthesized XML
  std::string refused;               // NCCL's own error on the synthesized XML, when NCCL would refuse it
  std::vector<std::string> notes;    // synthesis notes, and a dump NCCL wrote but the model refused
  std::optional<PathComparison> versus_nccl_log;   // our paths vs the paths NCCL printed
  std::optional<PathComparison> versus_nccl_dump;  // our paths vs our model of NCCL's dump
};

// `version`: the NCCL to model, the one this machine loads (cli/model_version_option.hpp live_model_version).
LiveModelCheck check_live_model(const LiveDiscovery& live, const Environment& env, const topo::ModelledVersion& version);

}  // namespace linkscope::discover
