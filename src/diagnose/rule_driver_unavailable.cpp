// driver-unavailable: neither NVML nor CUDA can use the NVIDIA driver, so nothing about the GPUs could be measured.
// The report still says which NVIDIA GPUs the PCI tree shows and why the driver could not be reached.
// nvml-unavailable: CUDA works but NVML does not: the copies are measured, NVML's facts are missing.
#include <fmt/format.h>

#include "core/cuda_version.hpp"
#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_driver_unavailable(const Context& context) {
  const model::System& system = context.evidence.system;
  if (!system.present || !system.driver.reported || system.driver.available) return std::nullopt;
  if (system.cuda.available && system.cuda.device_count > 0) return std::nullopt;  // nvml-unavailable
  Finding finding;
  finding.id = "driver-unavailable";
  finding.severity = Severity::kError;
  finding.evidence.push_back("NVML: " + (system.driver.reason.empty() ? std::string("unavailable") : system.driver.reason));
  if (!system.cuda.available && !system.cuda.reason.empty()) finding.evidence.push_back("CUDA: " + system.cuda.reason);
  int nvidia = 0;
  for (const auto& device : system.pci_display_devices) {
    if (device.vendor.value_or("") != "0x10de") continue;
    ++nvidia;
    finding.evidence.push_back(fmt::format("PCI {}: NVIDIA device {} (class {}), link {} x{}", device.pci_bdf,
                                           device.device.value_or("?"), device.class_id.value_or("?"),
                                           device.current_link_speed.value_or("?"),
                                           device.current_width ? std::to_string(*device.current_width) : "?"));
  }
  if (nvidia == 0) finding.evidence.push_back("the PCI tree shows no NVIDIA device");
  finding.numbers = {{"nvidia_pci_devices", nvidia}};
  finding.title = nvidia > 0 ? fmt::format("{} NVIDIA GPU(s) on the PCI bus, but the NVIDIA driver cannot be used", nvidia)
                             : "no NVIDIA driver and no NVIDIA GPU on the PCI bus";
  finding.explanation =
      "Without the driver (NVML) nothing about the GPUs can be read or measured: links, clocks, peer access and "
      "every copy or collective. What the PCI tree shows is all this run knows.";
  if (nvidia == 0) {
    finding.cause = "a machine without NVIDIA GPUs (or a container that does not show them)";
  } else {
    finding.cause = "the kernel module is not loaded, the user-space driver does not match it, or a container runs "
                    "without the driver mounted (nvidia-container-toolkit)";
  }
  finding.next_command = "lsmod | grep nvidia; nvidia-smi; ls -l /dev/nvidia*; dmesg | grep -i -e nvrm -e xid";
  return finding;
}

std::optional<Finding> rule_nvml_unavailable(const Context& context) {
  const model::System& system = context.evidence.system;
  if (!system.present || !system.driver.reported || system.driver.available) return std::nullopt;
  if (!system.cuda.available || system.cuda.device_count <= 0) return std::nullopt;  // driver-unavailable
  Finding finding;
  finding.id = "nvml-unavailable";
  finding.severity = Severity::kWarning;
  finding.evidence.push_back("NVML: " + (system.driver.reason.empty() ? std::string("unavailable") : system.driver.reason));
  finding.evidence.push_back(fmt::format("CUDA: {} device(s), driver supports CUDA {}", system.cuda.device_count,
                                         system.cuda.driver_version ? cuda_version_text(*system.cuda.driver_version)
                                                                    : std::string("?")));
  finding.numbers = {{"cuda_device_count", system.cuda.device_count}};
  finding.title = fmt::format("NVML cannot be used although CUDA sees {} GPU(s): NVML's facts are missing",
                              system.cuda.device_count);
  finding.explanation =
      "The driver works (CUDA measured the copies), but without NVML this run has no NVLink state, PCIe link "
      "generation and width, clocks, throttle reasons, ECC or error counters, and nothing was watched during the "
      "steps: rules that need them could not judge, so a healthy-looking report here proves less.";
  finding.cause = "libnvidia-ml.so.1 is missing, not on the loader's path, or from another driver version than the "
                  "kernel module (a container image with its own copy), or LINKSCOPE_NVML_LIBRARY points elsewhere";
  finding.next_command = "ldconfig -p | grep libnvidia-ml; nvidia-smi; cat /proc/driver/nvidia/version";
  return finding;
}

}  // namespace linkscope::diagnose
