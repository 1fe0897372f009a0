// host-differs: the hosts of one MPI job are not alike (system.host_differences, made by src/cluster): a different
// driver, CUDA, NCCL, GPU count or model, NVLinks, PCIe widths or NICs on some of them.
#include <algorithm>

#include <fmt/format.h>

#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

namespace {

// The CPU model alone changes no GPU path: worth knowing, not a warning.
bool informational(const std::string& trait) { return trait == "cpu"; }

std::string cause_of(const std::string& trait, const std::string& hosts) {
  if (trait == "driver" || trait == "cuda_driver") return "a different NVIDIA driver on " + hosts;
  if (trait == "cuda_runtime") return "a different CUDA runtime on " + hosts;
  if (trait == "nccl") return "a different NCCL library (or none) on " + hosts;
  if (trait == "gpu_count" || trait == "cuda_gpu_count" || trait == "gpu_models") return "different GPUs on " + hosts;
  if (trait == "nvlinks") return "NVLinks down on " + hosts;
  if (trait == "pcie_width") return "a PCIe link trained narrower on " + hosts;
  if (trait == "nic_count" || trait == "nic_links") return "a NIC missing, down or slower on " + hosts;
  if (trait == "nccl_net" || trait == "gpu_nics") return "NCCL would use another network or NIC on " + hosts;
  return "a different configuration on " + hosts;
}

}  // namespace

std::optional<Finding> rule_host_differs(const Context& context) {
  const auto& differences = context.evidence.system.host_differences;
  if (differences.empty()) return std::nullopt;
  Finding finding;
  finding.id = "host-differs";
  finding.severity = Severity::kInfo;
  std::vector<std::string> traits, odd_hosts, causes;
  for (const auto& d : differences) {
    const std::string& label = d.label.empty() ? d.trait : d.label;
    std::string others, hosts;
    for (const auto& o : d.others) {
      others += fmt::format("{}{} has {}", others.empty() ? "" : "; ", o.host, o.value);
      hosts += (hosts.empty() ? "" : ", ") + o.host;
      if (std::find(odd_hosts.begin(), odd_hosts.end(), o.host) == odd_hosts.end()) odd_hosts.push_back(o.host);
    }
    finding.evidence.push_back(fmt::format("{}: {} on {} host(s); {}", label, d.common_value, d.common_hosts.size(), others));
    traits.push_back(label);
    if (!informational(d.trait)) {
      finding.severity = Severity::kWarning;
      causes.push_back(cause_of(d.trait, hosts));
    }
  }
  std::string trait_list, host_list;
  for (const auto& t : traits) trait_list += (trait_list.empty() ? "" : ", ") + t;
  for (const auto& h : odd_hosts) host_list += (host_list.empty() ? "" : ", ") + h;
  finding.title = fmt::format("{} host(s) differ from the others: {}", odd_hosts.size(), trait_list);
  for (const auto& c : causes) finding.cause += (finding.cause.empty() ? "" : "; ") + c;
  finding.explanation =
      "Hosts that should be identical are not. A collective across hosts runs at the pace of its slowest member, and a "
      "different driver, NCCL or link state changes the paths and protocols NCCL picks on that host only.";
  finding.next_command = "mpirun -npernode 1 linkscope topo   # every host's facts side by side";
  finding.numbers = {{"hosts", host_list}, {"traits", traits}};
  return finding;
}

}  // namespace linkscope::diagnose
