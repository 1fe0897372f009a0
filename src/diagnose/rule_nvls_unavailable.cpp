// nvls-unavailable: GPUs joined by an NVSwitch fabric on which NCCL cannot use NVLink SHARP (NVLS): the GPU is
// not registered with the fabric (Fabric Manager not running or not done: NVML fabric state), the registration
// failed (its status), or CUDA says the device cannot do multicast. NCCL then quietly runs its ring/tree
// algorithms instead, with a lower all_reduce busbw on NVSwitch machines. Facts only: never judged without them.
#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

namespace {

bool has_service(const model::System& system, const std::string& name) {
  return system.nvidia_services &&
         std::find(system.nvidia_services->begin(), system.nvidia_services->end(), name) != system.nvidia_services->end();
}

}  // namespace

std::optional<Finding> rule_nvls_unavailable(const Context& context) {
  const model::System& system = context.evidence.run.system;
  // NVLS needs Hopper or later and at least two GPUs on the NVSwitch fabric.
  std::vector<const model::Gpu*> fabric_gpus;
  for (const auto& gpu : system.gpus) {
    if (gpu.links_to_nvswitch() && gpu.sm.value_or(0) >= 90) fabric_gpus.push_back(&gpu);
  }
  if (fabric_gpus.size() < 2) return std::nullopt;
  Finding finding;
  finding.id = "nvls-unavailable";
  bool not_registered = false;
  for (const model::Gpu* gpu : fabric_gpus) {
    std::vector<std::string> problems;
    if (gpu->fabric && gpu->fabric->state != "completed" && gpu->fabric->state != "not_supported") {
      problems.push_back(fmt::format("NVML fabric state {} (not registered with the NVLink fabric)", gpu->fabric->state));
      not_registered = true;
    } else if (gpu->fabric && gpu->fabric->state == "completed" && !gpu->fabric->status_ok) {
      problems.push_back(fmt::format("NVML fabric registration failed: {}", gpu->fabric->status));
      not_registered = true;
    }
    if (gpu->multicast && !*gpu->multicast) problems.push_back("CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED = 0");
    if (problems.empty()) continue;
    std::string text;
    for (const auto& problem : problems) text += (text.empty() ? "" : "; ") + problem;
    finding.evidence.push_back(fmt::format("{} ({}): {}", gpu->label(), gpu->pci_bdf, text));
    add_gpu_once(finding.gpus, gpu->cuda_ordinal);
  }
  if (finding.evidence.empty()) return std::nullopt;
  const bool fabric_manager_seen = has_service(system, "nv-fabricmanage");
  if (system.nvidia_services) {
    finding.evidence.push_back(fabric_manager_seen ? "nv-fabricmanager is running"
                                                   : "nv-fabricmanager is not running (no such process)");
  }
  finding.severity = Severity::kWarning;
  finding.title = fmt::format("NVLS (NVLink SHARP) is unavailable on {} of {} NVSwitch-connected GPUs",
                              finding.evidence.size() - (system.nvidia_services ? 1 : 0), fabric_gpus.size());
  finding.explanation =
      "NCCL uses NVLS for all_reduce, all_gather and reduce_scatter on NVSwitch machines when every GPU can do "
      "multicast and is registered with the fabric; without it NCCL silently falls back to ring/tree and "
      "all_reduce busbw drops (about a third on 8 x H100). Multi-node NVLink and IMEX need the same registration.";
  if (not_registered && system.nvidia_services && !fabric_manager_seen) {
    finding.cause = "Fabric Manager is not running: the GPUs were never registered with the NVSwitch fabric";
    finding.next_command = "systemctl status nvidia-fabricmanager; journalctl -u nvidia-fabricmanager | tail";
  } else if (not_registered) {
    finding.cause = "the GPUs' registration with the NVLink fabric did not complete (Fabric Manager starting, a "
                    "version mismatch with the driver, or an NVSwitch fault)";
    finding.next_command = "nvidia-smi -q | grep -A4 Fabric; journalctl -u nvidia-fabricmanager | tail";
  } else {
    finding.cause = "the driver does not offer multicast on these GPUs (a driver older than R530, a VM without "
                    "NVSwitch passthrough, or MIG)";
    finding.next_command = "nvidia-smi -q | grep -A4 Fabric; NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,NVLS <your job>";
  }
  return finding;
}

}  // namespace linkscope::diagnose
