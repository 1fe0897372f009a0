// nccl-topology-refused: the modelled NCCL would stop with an error while building its graph of this topology (live: the
// topology synthesized from this machine; --xml: the file), so every NCCL communicator here fails to start.
#include <fmt/format.h>

#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_nccl_topology_refused(const Context& context) {
  const model::TopologyView& topology = context.evidence.topology;
  if (!topology.present || !topology.refused) return std::nullopt;
  Finding finding;
  finding.id = "nccl-topology-refused";
  finding.severity = Severity::kError;
  finding.evidence.push_back(fmt::format("NCCL {} on {}: {}", topology.nccl_version_modelled.empty() ? topology.nccl_version : topology.nccl_version_modelled,
                                         topology.source, *topology.refused));
  finding.title = "NCCL would refuse this topology: communicators cannot start";
  finding.explanation =
      "NCCL builds its graph from this topology at every communicator's initialisation and stops with this error: "
      "every NCCL job (and NCCL_TOPO_FILE pointing at the file) fails before moving any data.";
  finding.cause = "links or nodes that do not agree with each other (e.g. a GPU whose peers list NVLinks to it "
                  "but which lists none back), or a topology beyond NCCL's limits";
  finding.next_command = "NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=GRAPH,INIT all_reduce_perf -g 2   # NCCL's own error";
  return finding;
}

}  // namespace linkscope::diagnose
