#include <fmt/format.h>

#include "discover/host_evidence.hpp"

namespace linkscope::discover {

bool is_virtual_bridge(const PciDevice& device) {
  if (!device.is_bridge() || !device.vendor || !device.device) return false;
  const std::string& vendor = *device.vendor;
  const std::string& id = *device.device;
  return vendor == "0x1b36" || (vendor == "0x104c" && (id == "0x8232" || id == "0x8233")) ||
         (vendor == "0x15ad" && id == "0x07a0");
}

std::vector<std::string> nvidia_gpu_bdfs(const PciTree& pci) {
  std::vector<std::string> gpus;
  for (const auto& device : pci.devices()) {
    if (device.is_display() && device.vendor == "0x10de") gpus.push_back(device.bdf);
  }
  return gpus;
}

model::Virtualization read_virtualization(const SysfsRoot& root, const PciTree& pci, const std::optional<CpuInfo>& cpu,
                                          int numa_nodes) {
  model::Virtualization out;
  out.hypervisor_flag = cpu && cpu->hypervisor;
  out.sys_vendor = root.read_attribute("/sys/class/dmi/id/sys_vendor");
  out.product_name = root.read_attribute("/sys/class/dmi/id/product_name");
  for (const auto& device : pci.devices()) {
    if (is_virtual_bridge(device)) {
      out.virtual_bridges.push_back(
          fmt::format("{} ({}:{})", device.bdf, device.vendor->substr(2), device.device->substr(2)));
    }
  }
  for (const auto& bdf : nvidia_gpu_bdfs(pci)) {
    if (pci.find(bdf)->numa_node_id() == -1) out.gpus_without_numa.push_back(bdf);
  }
  out.numa_nodes = numa_nodes;
  return out;
}

}  // namespace linkscope::discover
