// driver-unavailable: NVML (and with it the NVIDIA driver) cannot be used, so nothing about the GPUs could be
// measured. The report still says which NVIDIA GPUs the PCI tree shows and why the driver could not be reached.
#include <fmt/format.h>

#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_driver_unavailable(const Context& context) {
  const model::System& system = context.evidence.system;
  if (!system.present || !system.driver.reported || system.driver.available) return std::nullopt;
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

}  // namespace linkscope::diagnose
