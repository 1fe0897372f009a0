#include "discover/live_system.hpp"

#include "discover/gpu_nic_relations.hpp"
#include "discover/system_model.hpp"

namespace linkscope::discover {

namespace {

std::optional<std::string> text_or_none(const std::string& text) {
  return text.empty() ? std::nullopt : std::optional<std::string>(text);
}

}  // namespace

model::PathComparison path_comparison_model(const PathComparison& comparison) {
  model::PathComparison out;
  out.identical = comparison.identical();
  out.equivalent = comparison.equivalent();
  out.compared_lines = static_cast<int>(comparison.compared_lines);
  for (const auto& d : comparison.differences) {
    out.differences.push_back({d.node, d.target, text_or_none(d.ours), text_or_none(d.theirs), d.expected, d.explanation});
  }
  return out;
}

model::System live_system(const LiveDiscovery& live, const LiveModelCheck& check) {
  model::System out = system_model(live.facts);
  out.synthesized_topology = model::SynthesizedTopology{live.synthesized.gpu_count, live.synthesized.nets.plugin,
                                                        check.notes};
  out.gpu_nics = gpu_nics(live.facts, live.synthesized.nets, check.ours ? &check.ours->view : nullptr);
  model::NcclTopologyProbe nccl;
  if (!live.nccl) {
    nccl.status = "skipped";
    nccl.reason = "not asked (--no-nccl)";
  } else {
    const NcclProbeResult& probe = *live.nccl;
    nccl.status = probe.status;
    if (probe.status != "ok") nccl.reason = probe.reason;
    nccl.nccl_version = text_or_none(probe.nccl_version);
    nccl.device_count = probe.device_count;
    if (probe.status == "ok") nccl.init_seconds = probe.init_seconds;
    nccl.wall_seconds = probe.wall_seconds;
    nccl.child_env = probe.child_env;
    nccl.dump_xml = text_or_none(probe.dump_xml);
    nccl.path_lines = nccl_log_path_lines(probe.log);
  }
  if (check.versus_nccl_log) nccl.versus_nccl_log = path_comparison_model(*check.versus_nccl_log);
  if (check.versus_nccl_dump) nccl.versus_nccl_dump = path_comparison_model(*check.versus_nccl_dump);
  out.nccl_topology = std::move(nccl);
  out.discovery_seconds = model::DiscoverySeconds{live.times.sysfs_seconds, live.times.nvml_seconds,
                                                  live.times.cuda_seconds,  live.times.synthesis_seconds,
                                                  live.times.nccl_wait_seconds, live.times.total_seconds};
  return out;
}

model::Run topo_live_run(const LiveDiscovery& live, const LiveModelCheck& check, const Environment& env,
                         const std::vector<std::string>& argv) {
  model::Run run = model::make_run("topo", argv);
  run.environment.variables = env.relevant();
  run.system = live_system(live, check);
  if (check.ours) run.topology = check.ours->view;
  if (!check.refused.empty()) {
    run.topology.present = true;
    run.topology.source = "synthesized topology";
    run.topology.refused = check.refused;
  }
  for (const auto& error : live.facts.errors) run.record_error("discover", error);
  if (!check.reason.empty()) run.record_error("model", check.reason);
  if (live.nccl && live.nccl->status != "ok" && live.nccl->status != "skipped") {
    run.record_error("nccl topology", live.nccl->reason);
  }
  return run;
}

}  // namespace linkscope::discover
