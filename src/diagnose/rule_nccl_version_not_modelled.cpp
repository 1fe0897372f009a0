// nccl-version-not-modelled: the NCCL asked for (the loaded libnccl live, --nccl-version offline) is outside the
// versions linkscope models exactly, so its model follows the nearest release and its predictions may differ.
#include <fmt/format.h>

#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_nccl_version_not_modelled(const Context& context) {
  const model::TopologyView& topology = context.evidence.topology;
  if (!topology.present || topology.nccl_version_note.empty()) return std::nullopt;
  Finding finding;
  finding.id = "nccl-version-not-modelled";
  finding.severity = Severity::kInfo;
  finding.title = fmt::format("NCCL {} is modelled as NCCL {}", topology.nccl_version, topology.nccl_version_modelled);
  finding.evidence.push_back(topology.nccl_version_note);
  if (!topology.nccl_version_from.empty()) {
    finding.evidence.push_back(fmt::format("NCCL {} comes from {}", topology.nccl_version, topology.nccl_version_from));
  }
  finding.explanation =
      "linkscope reproduces NCCL's graph, search and tuning release by release; this release is not one of them, so "
      "the paths, channels and per-size choices shown are those of the nearest release modelled, and NCCL's own "
      "choices may differ where the releases differ.";
  finding.cause = "an NCCL release older or newer than the versions linkscope models (docs/topology-model.md, "
                  "Versions)";
  // A file the user gave can be modelled again as the release named; a live run's topology is dumped first.
  const bool from_file = topology.source.size() > 4 && topology.source.compare(topology.source.size() - 4, 4, ".xml") == 0;
  finding.next_command = fmt::format("{}linkscope topo --xml {} --nccl-version {}   # and NCCL's own: NCCL_DEBUG=INFO "
                                     "NCCL_DEBUG_SUBSYS=GRAPH,TUNING",
                                     from_file ? "" : "linkscope topo --dump-xml topo.xml && ",
                                     from_file ? topology.source : "topo.xml", topology.nccl_version_modelled);
  return finding;
}

}  // namespace linkscope::diagnose
