// cross-host-slow: between hosts (measurements.cross_host, made by `linkscope cluster` and `doctor` under MPI), a
// host whose pairs are slower than the others, a pair below its NICs' rate, or pairs and the all_reduce that failed.
#include <fmt/format.h>

#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_cross_host_slow(const Context& context) {
  const auto& measured = context.evidence.run.measurements.cross_host;
  if (!measured) return std::nullopt;
  const model::CrossHost& cross = *measured;
  Finding finding;
  finding.id = "cross-host-slow";
  finding.severity = Severity::kWarning;
  std::vector<std::string> subjects;
  bool socket_instead_of_rdma = false;
  for (const auto& pair : cross.pairs) {
    const std::string name =
        fmt::format("{} <-> {}", cross.host_name(pair.a.host, "?"), cross.host_name(pair.b.host, "?"));
    if (pair.status != "ok") {
      finding.severity = Severity::kError;
      finding.evidence.push_back(fmt::format("{}: {}: {}", name, pair.status, pair.reason.value_or("")));
      subjects.push_back(name + " " + pair.status);
    }
  }
  for (const auto& culprit : cross.slow) {
    finding.evidence.push_back(culprit.evidence);
    if (culprit.kind == "failed") finding.severity = Severity::kError;
    std::string subject = cross.host_name(culprit.host, "");
    if (culprit.other_host >= 0) subject += " <-> " + cross.host_name(culprit.other_host, "?");
    if (!culprit.nic.empty()) subject += " (" + culprit.nic + ")";
    subjects.push_back(subject);
    if (culprit.kind == "pair") {
      for (const auto& pair : cross.pairs) {
        if (pair.a.transport.rfind("NET/Socket", 0) == 0) socket_instead_of_rdma = true;
      }
    }
  }
  if (cross.all_reduce_status != "ok" && cross.all_reduce_status != "not run") {
    finding.severity = Severity::kError;
    finding.evidence.push_back(fmt::format("all_reduce over every rank: {}: {}", cross.all_reduce_status,
                                           cross.all_reduce_reason.value_or("")));
    subjects.push_back("the all_reduce " + cross.all_reduce_status);
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
