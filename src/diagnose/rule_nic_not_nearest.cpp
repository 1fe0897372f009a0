// nic-not-nearest: the RDMA NIC NCCL would use for a GPU (the nearest of its NET devices) is farther than another
// RDMA NIC of the host, which NCCL does not use (excluded by NCCL_IB_HCA, port down); and RDMA devices that share
// a node GUID serving different GPUs (two ports of one HCA standing for two rails).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/text.hpp"
#include "diagnose/expectations.hpp"
#include "diagnose/host_evidence_checks.hpp"
#include "diagnose/rules.hpp"
#include "discover/gpu_nic_relations.hpp"

namespace linkscope::diagnose {

namespace {

std::string port_states(const model::Nic& nic) {
  std::vector<std::string> states;
  for (const auto& port : nic.ports) states.push_back(fmt::format("port {} {}", port.port, port.state));
  return states.empty() ? "no port listed" : join(states, ", ");
}

}  // namespace

std::optional<Finding> rule_nic_not_nearest(const Context& context) {
  const model::System& system = context.evidence.system;
  Finding finding;
  finding.id = "nic-not-nearest";
  const int steps = static_cast<int>(threshold(Threshold::kNicNearerSteps));
  std::map<std::string, std::vector<int>> gpus_of_nic;  // NCCL's NIC -> GPUs it serves
  for (const auto& gpu : system.gpu_nics) {
    if (!gpu.closest || rdma_nic(system, *gpu.closest) == nullptr || !gpu.cuda_ordinal) continue;
    gpus_of_nic[*gpu.closest].push_back(*gpu.cuda_ordinal);
    const int used = discover::relation_distance(gpu.closest_relation.value_or(""));
    const model::GpuNicRelation* nearest = nullptr;
    for (const auto& r : gpu.nics) {
      if (rdma_nic(system, r.name) == nullptr) continue;
      if (nearest == nullptr ||
          discover::relation_distance(r.relation) < discover::relation_distance(nearest->relation))
        nearest = &r;
    }
    if (nearest == nullptr || used - discover::relation_distance(nearest->relation) < steps) continue;
    finding.evidence.push_back(
        fmt::format("GPU{}: NCCL's NIC {} is {}, but {} is {} ({}; {})", *gpu.cuda_ordinal, *gpu.closest,
                    gpu.closest_relation.value_or("?"), nearest->name, nearest->relation,
                    nearest->nccl_net ? "one of NCCL's NET devices" : "not one of NCCL's NET devices",
                    port_states(*rdma_nic(system, nearest->name))));
    add_gpu_once(finding.gpus, gpu.cuda_ordinal);
  }
  const bool misplaced = !finding.evidence.empty();
  if (system.host_evidence) {
    for (const auto& shared : system.host_evidence->shared_node_guids) {
      std::vector<std::string> serving;
      for (const auto& nic : shared.nics) {
        if (gpus_of_nic.count(nic)) serving.push_back(nic);
      }
      if (serving.size() < 2) continue;
      finding.evidence.push_back(
          fmt::format("{} share node GUID {} (ports of one HCA) and serve different GPUs as if "
                      "they were separate rails",
                      join(serving, " and "), shared.node_guid));
      for (const auto& nic : serving) {
        for (const int g : gpus_of_nic[nic]) add_gpu_once(finding.gpus, g);
      }
    }
  }
  if (finding.evidence.empty()) return std::nullopt;
  std::sort(finding.gpus.begin(), finding.gpus.end());
  finding.severity = misplaced ? Severity::kWarning : Severity::kInfo;
  finding.title = misplaced
                      ? fmt::format("{} GPU(s) would use an RDMA NIC farther than the nearest one", finding.gpus.size())
                      : "RDMA devices of one HCA serve different GPUs";
  finding.explanation =
      "NCCL gives each GPU the nearest of its NET devices. A farther NIC crosses the PCIe root complex or the CPU "
      "interconnect (no GPUDirect RDMA beyond NCCL_NET_GDR_LEVEL) and may sit on another rail than the peers' NICs; "
      "two ports of one HCA share its PCIe link, so their rails share its bandwidth.";
  finding.cause =
      misplaced ? "the nearer NIC is not among NCCL's NET devices: NCCL_IB_HCA leaves it out or its port is not active"
                : "a dual-port HCA cabled as two rails";
  finding.next_command =
      "ibstat; echo $NCCL_IB_HCA; nvidia-smi topo -m; NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=NET shows "
      "the NIC each channel uses";
  return finding;
}

}  // namespace linkscope::diagnose
