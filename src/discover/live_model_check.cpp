#include "discover/live_model_check.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "topo/nccl_log_printer.hpp"
#include "topo/prediction_view.hpp"
#include "topo/smi_matrix.hpp"
#include "topo/topology_model.hpp"

namespace linkscope::discover {

ModelSummary model_topology_xml(const std::string& xml, const std::string& source_name, const Environment& env,
                                const topo::ModelledVersion& version) {
  const topo::TopologyModel model = topo::load_topology_string(xml, source_name, env, version);
  ModelSummary summary;
  summary.path_lines = topo::nccl_path_lines(model);
  summary.view = topo::topology_view(model);
  summary.view.prediction = topo::predict_topology(model, env);
  summary.nccl_log = topo::render_nccl_log(model);
  summary.relation_matrix = topo::render_relation_matrix(topo::relation_matrix(model));
  return summary;
}

LiveModelCheck check_live_model(const LiveDiscovery& live, const Environment& env, const topo::ModelledVersion& version) {
  LiveModelCheck check;
  if (live.synthesized.xml.empty()) {
    check.reason = live.synthesized.notes.empty() ? "no topology XML" : live.synthesized.notes.back();
  } else {
    try {
      check.ours = model_topology_xml(live.synthesized.xml, "synthesized topology", env, version);
    } catch (const topo::TopologyRefused& e) {
      check.refused = e.reason();
      check.reason = fmt::format("NCCL {} would refuse this machine's topology: {}", version.modelled.text(), e.what());
    } catch (const Error& e) {
      check.reason = fmt::format("linkscope's model refuses the synthesized XML: {}", e.what());
    }
  }
  for (const auto& note : live.synthesized.notes) {
    if (note != check.reason) check.notes.push_back(note);
  }
  if (!check.ours || !live.nccl || live.nccl->status != "ok") return check;
  const NcclProbeResult& nccl = *live.nccl;
  const auto printed = nccl_log_path_lines(nccl.log);
  if (!printed.empty()) check.versus_nccl_log = compare_path_lines(check.ours->path_lines, printed, nccl.nccl_version);
  try {
    const ModelSummary theirs = model_topology_xml(nccl.dump_xml, "NCCL's topology dump", env, version);
    check.versus_nccl_dump = compare_path_lines(check.ours->path_lines, theirs.path_lines, "");
  } catch (const Error& e) {
    check.notes.push_back(fmt::format("NCCL's dump cannot be modelled: {}", e.what()));
  }
  return check;
}

}  // namespace linkscope::discover
