#include "cli/cluster_host_facts.hpp"

#include <memory>

#include "core/error.hpp"
#include "discover/live_system.hpp"
#include "model/json_read.hpp"

namespace linkscope::cli {

cluster::HostReport discover_host_report(const cluster::ClusterSession& session, const TopoLiveOptions& options,
                                         const std::string& dump_xml_path, std::optional<TopoLiveResult>& mine) {
  cluster::HostReport report = cluster::host_report_for(session.roster(), session.my_host_index());
  cluster::fill_nccl_version(report);
  try {
    mine = discover_topo_live(options, dump_xml_path);
    report.system = std::make_shared<const model::System>(discover::live_system(mine->live, mine->check));
  } catch (const Error& e) {
    report.error = e.what();
  }
  return report;
}

std::optional<cluster::HostsComparison> compare_gathered_hosts(cluster::ClusterSession& session,
                                                               const std::optional<cluster::HostReport>& mine,
                                                               double work_s) {
  const std::string text = mine ? cluster::host_report_to_json(*mine).dump() : std::string();
  const auto texts = session.gather_from_leaders(text, "collecting every host's hardware facts", work_s);
  if (!session.is_root()) return std::nullopt;
  std::vector<cluster::HostReport> reports;
  for (const auto& report : texts) {
    const nlohmann::json message = nlohmann::json::parse(report);
    reports.push_back(cluster::host_report_from_json(model::JsonReader::root(message, "a host's hardware facts")));
  }
  return cluster::compare_hosts(reports);
}

}  // namespace linkscope::cli
