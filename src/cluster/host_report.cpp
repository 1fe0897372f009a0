#include "cluster/host_report.hpp"

namespace linkscope::cluster {

HostReport host_report_for(const Roster& roster, std::size_t index) {
  const RosterHost& host = roster.hosts.at(index);
  HostReport report;
  report.name = host.name;
  report.hostname = host.hostname;
  report.identity_source = host.identity_source;
  report.ranks = host.ranks;
  report.leader = host.leader;
  return report;
}

nlohmann::json host_report_to_json(const HostReport& report) {
  return {{"name", report.name},
          {"hostname", report.hostname},
          {"identity_source", report.identity_source},
          {"ranks", report.ranks},
          {"leader", report.leader},
          {"nccl_version", model::optional_json(report.nccl_version)},
          {"nccl_version_reason", report.nccl_version_reason},
          {"system", report.system ? model::to_json(*report.system) : nlohmann::json(nullptr)},
          {"error", report.error}};
}

HostReport host_report_from_json(const model::JsonReader& r) {
  HostReport report;
  report.name = r.string_or("name");
  report.hostname = r.string_or("hostname");
  report.identity_source = r.string_or("identity_source");
  for (auto rank : r.integers("ranks")) report.ranks.push_back(static_cast<int>(rank));
  report.leader = r.small_int("leader").value_or(0);
  report.nccl_version = r.string("nccl_version");
  report.nccl_version_reason = r.string_or("nccl_version_reason");
  if (r.has("system")) report.system = std::make_shared<const model::System>(model::system_from_json(r.object("system")));
  report.error = r.string_or("error");
  return report;
}

}  // namespace linkscope::cluster
