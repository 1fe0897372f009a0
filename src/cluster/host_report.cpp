#include "cluster/host_report.hpp"

#include "core/error.hpp"

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
          {"nccl_version", report.nccl_version ? nlohmann::json(*report.nccl_version) : nlohmann::json(nullptr)},
          {"nccl_version_reason", report.nccl_version_reason},
          {"system", report.system},
          {"error", report.error}};
}

HostReport host_report_from_json(const nlohmann::json& json) {
  try {
    HostReport report;
    report.name = json.at("name").get<std::string>();
    report.hostname = json.at("hostname").get<std::string>();
    report.identity_source = json.at("identity_source").get<std::string>();
    report.ranks = json.at("ranks").get<std::vector<int>>();
    report.leader = json.at("leader").get<int>();
    if (!json.at("nccl_version").is_null()) report.nccl_version = json.at("nccl_version").get<std::string>();
    report.nccl_version_reason = json.at("nccl_version_reason").get<std::string>();
    report.system = json.at("system");
    report.error = json.at("error").get<std::string>();
    return report;
  } catch (const nlohmann::json::exception& e) {
    throw Error(ExitCode::kInternal, std::string("malformed host report: ") + e.what());
  }
}

}  // namespace linkscope::cluster
