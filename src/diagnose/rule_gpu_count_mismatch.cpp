// gpu-count-mismatch: NVML (all GPUs of the machine) and CUDA (what this process may use) disagree.
#include <fmt/format.h>

#include "core/cuda_version.hpp"
#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_gpu_count_mismatch(const Context& context) {
  const Evidence& evidence = context.evidence;
  // Without NVML nothing counted the machine's GPUs (driver-unavailable / nvml-unavailable say so).
  if (evidence.system.present && evidence.system.driver.reported && !evidence.system.driver.available) return std::nullopt;
  std::optional<int> nvml = evidence.nvml_gpu_count;
  if (!nvml && !evidence.gpus.empty()) nvml = static_cast<int>(evidence.gpus.size());
  const std::optional<int> cuda = evidence.cuda_device_count;
  if (!nvml || !cuda || *nvml == *cuda) return std::nullopt;

  Finding finding;
  finding.id = "gpu-count-mismatch";
  finding.numbers = {{"nvml_gpu_count", *nvml}, {"cuda_device_count", *cuda}};
  finding.evidence.push_back(fmt::format("NVML sees {} GPU(s); CUDA sees {} device(s)", *nvml, *cuda));
  for (const auto& [who, reason] : evidence.hidden_gpus) {
    finding.evidence.push_back(fmt::format("hidden from CUDA: {}{}", who, reason.empty() ? "" : " (" + reason + ")"));
  }

  std::vector<std::string> mig_gpus;
  for (const auto* gpu : evidence.gpus) {
    if (mig_mode(*gpu) == "enabled") mig_gpus.push_back(gpu->pci_bdf.empty() ? gpu->label() : gpu->pci_bdf);
  }
  std::string visible = evidence.cuda_visible_devices;
  if (const auto it = evidence.env.find("CUDA_VISIBLE_DEVICES"); it != evidence.env.end()) visible = it->second;
  const bool masked = evidence.env.count("CUDA_VISIBLE_DEVICES") != 0 || evidence.system.visibility.cuda_visible_devices;
  const model::System& system = evidence.system;
  if (*cuda == 0) {
    // Nothing can be measured: whatever the cause, this is the error the doctor exists for.
    finding.severity = Severity::kError;
    if (!system.cuda.reason.empty()) finding.evidence.push_back("CUDA: " + system.cuda.reason);
    const auto driver_cuda = system.driver.cuda_driver_version;
    const auto runtime = system.cuda.runtime_version;
    const bool runtime_too_new = driver_cuda && runtime && *runtime > *driver_cuda;
    if (driver_cuda || runtime) {
      finding.evidence.push_back(fmt::format("driver {} supports CUDA {}; linkscope's CUDA runtime is {}",
                                             system.driver.version.value_or("?"),
                                             driver_cuda ? cuda_version_text(*driver_cuda) : "?",
                                             runtime ? cuda_version_text(*runtime) : "?"));
    }
    if (masked) {
      finding.evidence.push_back(fmt::format("environment: CUDA_VISIBLE_DEVICES={}", visible.empty() ? "(empty)" : visible));
      finding.cause = fmt::format("CUDA_VISIBLE_DEVICES={} selects none of the {} GPUs", visible.empty() ? "\"\"" : visible, *nvml);
      finding.next_command = "env -u CUDA_VISIBLE_DEVICES linkscope doctor; nvidia-smi -L";
    } else if (!mig_gpus.empty()) {
      std::string list;
      for (const auto& g : mig_gpus) list += (list.empty() ? "" : ", ") + g;
      finding.evidence.push_back("MIG mode enabled on " + list);
      finding.cause = "MIG is enabled without GPU instances CUDA can use (or without compute instances)";
      finding.next_command = "nvidia-smi mig -lgi; nvidia-smi mig -lci; nvidia-smi -L";
    } else if (runtime_too_new) {
      finding.cause = "the driver is older than linkscope's CUDA runtime (update the driver or use a build for its CUDA)";
      finding.next_command = "nvidia-smi; cat /proc/driver/nvidia/version";
    } else {
      finding.cause = "CUDA cannot open the GPUs: permissions on /dev/nvidia*, a container without the device "
                      "nodes, a GPU that failed to initialize (Xid), or a driver/runtime mismatch";
      finding.next_command = "ls -l /dev/nvidia*; nvidia-smi -L; dmesg | grep -i -e xid -e nvrm";
    }
    finding.explanation = "CUDA can use none of the GPUs the driver reports: no copy or collective can run here, "
                          "and every CUDA job on this machine fails the same way.";
  } else if (masked) {
    finding.evidence.push_back(fmt::format("environment: CUDA_VISIBLE_DEVICES={}", visible));
    finding.cause = fmt::format("CUDA_VISIBLE_DEVICES={} limits this process to {} of the {} GPUs", visible, *cuda,
                                *nvml);
    finding.severity = Severity::kWarning;
    finding.explanation =
        "CUDA ordinals are counted after the mask, NVML indices are not. Every measurement in this run covers only "
        "the visible GPUs: links to the hidden ones were not tested.";
    finding.next_command = "env -u CUDA_VISIBLE_DEVICES linkscope doctor";
  } else if (!mig_gpus.empty()) {
    std::string list;
    for (const auto& g : mig_gpus) list += (list.empty() ? "" : ", ") + g;
    finding.evidence.push_back("MIG mode enabled on " + list);
    finding.cause = "MIG is enabled: CUDA enumerates MIG instances, not whole GPUs, and MIG instances have no P2P";
    finding.severity = Severity::kWarning;
    finding.explanation =
        "With MIG, NVLink and peer-to-peer copies between GPUs are unavailable; GPU-to-GPU results do not describe "
        "the whole-GPU machine.";
    finding.next_command = "nvidia-smi -L";
  } else {
    finding.cause = "unknown: no CUDA_VISIBLE_DEVICES and no MIG; a GPU may have failed to initialize in CUDA "
                    "(driver error, Xid, permissions on /dev/nvidia*, container device list)";
    finding.severity = Severity::kError;
    finding.explanation = "CUDA cannot use every GPU that the driver reports, so part of the machine is unusable.";
    finding.next_command = "nvidia-smi -L; ls -l /dev/nvidia*; dmesg | grep -i -e xid -e nvrm";
  }
  finding.title = fmt::format("CUDA sees {} of the {} GPUs that NVML reports", *cuda, *nvml);
  return finding;
}

}  // namespace linkscope::diagnose
