#include "discover/live_json.hpp"

#include "discover/facts_json.hpp"
#include "discover/gpu_nic_relations.hpp"

namespace linkscope::discover {

nlohmann::json path_comparison_to_json(const PathComparison& comparison) {
  nlohmann::json out;
  out["identical"] = comparison.identical();
  out["equivalent"] = comparison.equivalent();
  out["compared_lines"] = comparison.compared_lines;
  out["differences"] = nlohmann::json::array();
  for (const auto& d : comparison.differences) {
    out["differences"].push_back({{"node", d.node},
                                  {"target", d.target},
                                  {"linkscope", d.ours.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.ours)},
                                  {"nccl", d.theirs.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.theirs)},
                                  {"expected", d.expected},
                                  {"explanation", d.explanation}});
  }
  return out;
}

nlohmann::json live_discovery_to_json(const LiveDiscovery& live, const LiveModelCheck& check) {
  nlohmann::json out = system_facts_to_json(live.facts);
  out["synthesized_topology"] = {{"gpu_count", live.synthesized.gpu_count},
                                 {"net_transport", live.synthesized.nets.plugin},
                                 {"notes", check.notes}};
  out["gpu_nics"] = gpu_nics_json(live.facts, live.synthesized.nets, check.ours ? check.ours->json : nlohmann::json());
  nlohmann::json nccl;
  if (!live.nccl) {
    nccl = {{"status", "skipped"}, {"reason", "not asked (--no-nccl)"}};
  } else {
    const NcclProbeResult& probe = *live.nccl;
    nccl["status"] = probe.status;
    nccl["reason"] = probe.status == "ok" ? nlohmann::json(nullptr) : nlohmann::json(probe.reason);
    nccl["nccl_version"] = probe.nccl_version.empty() ? nlohmann::json(nullptr) : nlohmann::json(probe.nccl_version);
    nccl["device_count"] = probe.device_count;
    nccl["init_seconds"] = probe.status == "ok" ? nlohmann::json(probe.init_seconds) : nlohmann::json(nullptr);
    nccl["wall_seconds"] = probe.wall_seconds;
    nccl["child_env"] = probe.child_env;
    nccl["dump_xml"] = probe.dump_xml.empty() ? nlohmann::json(nullptr) : nlohmann::json(probe.dump_xml);
    nccl["path_lines"] = nccl_log_path_lines(probe.log);
  }
  nccl["versus_nccl_log"] = check.versus_nccl_log ? path_comparison_to_json(*check.versus_nccl_log) : nlohmann::json(nullptr);
  nccl["versus_nccl_dump"] = check.versus_nccl_dump ? path_comparison_to_json(*check.versus_nccl_dump) : nlohmann::json(nullptr);
  out["nccl_topology"] = nccl;
  out["discovery_seconds"] = {{"sysfs", live.times.sysfs_seconds},         {"nvml", live.times.nvml_seconds},
                              {"cuda", live.times.cuda_seconds},           {"synthesis", live.times.synthesis_seconds},
                              {"nccl_wait", live.times.nccl_wait_seconds}, {"total", live.times.total_seconds}};
  return out;
}

RunDocument topo_live_run(const LiveDiscovery& live, const LiveModelCheck& check, const Environment& env,
                          const std::vector<std::string>& argv) {
  RunDocument run = make_run("topo", argv);
  run.environment["variables"] = env.relevant();
  run.system = live_discovery_to_json(live, check);
  if (check.ours) run.model = check.ours->json;
  for (const auto& error : live.facts.errors) record_error(run, "discover", error);
  if (!check.reason.empty()) record_error(run, "model", check.reason);
  if (live.nccl && live.nccl->status != "ok" && live.nccl->status != "skipped") {
    record_error(run, "nccl topology", live.nccl->reason);
  }
  return run;
}

}  // namespace linkscope::discover
