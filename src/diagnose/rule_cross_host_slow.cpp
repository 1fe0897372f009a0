// cross-host-slow: between hosts (measurements.cross_host, made by `linkscope cluster` and `doctor` under MPI), a
// host whose pairs are slower than the others, a pair below its NICs' rate, or pairs and the all_reduce that failed.
#include <fmt/format.h>

#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

namespace {

std::string text_of(const nlohmann::json& value, const std::string& fallback = "?") {
  return value.is_string() ? value.get<std::string>() : fallback;
}

}  // namespace

std::optional<Finding> rule_cross_host_slow(const Context& context) {
  const nlohmann::json& cross = context.cross_host;
  if (!cross.is_object()) return std::nullopt;
  Finding finding;
  finding.id = "cross-host-slow";
  finding.severity = Severity::kWarning;
  std::vector<std::string> subjects;
  bool socket_instead_of_rdma = false;
  for (const auto& pair : cross.value("pairs", nlohmann::json::array())) {
    const std::string status = pair.value("status", "ok");
    const std::string name = fmt::format("{} <-> {}", text_of(pair["a"]["host"]), text_of(pair["b"]["host"]));
    if (status != "ok") {
      finding.severity = Severity::kError;
      finding.evidence.push_back(fmt::format("{}: {}: {}", name, status, text_of(pair["reason"], "")));
      subjects.push_back(name + " " + status);
    }
  }
  for (const auto& culprit : cross.value("slow", nlohmann::json::array())) {
    const std::string kind = culprit.value("kind", "");
    finding.evidence.push_back(culprit.value("evidence", ""));
    if (kind == "failed") finding.severity = Severity::kError;
    std::string subject = text_of(culprit["host"], "");
    if (culprit["other_host"].is_string()) subject += " <-> " + culprit["other_host"].get<std::string>();
    if (culprit["nic"].is_string()) subject += " (" + culprit["nic"].get<std::string>() + ")";
    subjects.push_back(subject);
    if (kind == "pair") {
      for (const auto& pair : cross.value("pairs", nlohmann::json::array())) {
        if (text_of(pair["a"]["transport"], "").rfind("NET/Socket", 0) == 0) socket_instead_of_rdma = true;
      }
    }
  }
  const auto& all_reduce = cross.value("all_reduce", nlohmann::json::object());
  const std::string ar_status = all_reduce.value("status", "not run");
  if (ar_status != "ok" && ar_status != "not run") {
    finding.severity = Severity::kError;
    finding.evidence.push_back(fmt::format("all_reduce over every rank: {}: {}", ar_status, text_of(all_reduce["reason"], "")));
    subjects.push_back("the all_reduce " + ar_status);
  }
  if (finding.evidence.empty()) return std::nullopt;

  std::string list;
  for (std::size_t i = 0; i < subjects.size() && i < 4; ++i) list += (i == 0 ? "" : ", ") + subjects[i];
  if (subjects.size() > 4) list += fmt::format(" and {} more", subjects.size() - 4);
  finding.title = "Between hosts: " + list;
  if (socket_instead_of_rdma) {
    finding.cause = "NCCL moved the data over sockets (NET/Socket), not RDMA: check NCCL_IB_DISABLE, NCCL_NET, the "
                    "RDMA drivers and that the NIC ports are ACTIVE";
  } else if (finding.severity == Severity::kError) {
    finding.cause = "a host or its network path failed during the test (see the evidence for the first error)";
  } else {
    finding.cause = "the named host's NIC, cable or switch port, or its PCIe path to the GPU; compare its NIC facts "
                    "in the Hosts section";
  }
  finding.explanation =
      "Every collective across hosts runs at the pace of its slowest link: one slow host or NIC slows the whole job.";
  finding.next_command = "mpirun -npernode 1 linkscope cluster -b 256M -e 1G --schedule serial";
  finding.numbers = {{"subjects", subjects}};
  return finding;
}

}  // namespace linkscope::diagnose
