#include <sstream>

#include <fmt/format.h>

#include "discover/host_evidence.hpp"

namespace linkscope::discover {

namespace {

bool is_translated(const std::string& type) { return type == "DMA" || type == "DMA-FQ"; }

// The mode the kernel command line asks for, "" when it asks none.
std::string cmdline_mode(const std::vector<std::string>& options) {
  std::string mode;
  for (const auto& option : options) {
    if (option == "iommu=pt" || option == "iommu.passthrough=1") mode = "passthrough";
    if (option == "iommu=off" || option == "intel_iommu=off" || option == "amd_iommu=off") mode = "off";
  }
  return mode;
}

}  // namespace

std::vector<std::string> iommu_cmdline_options(const std::string& cmdline) {
  std::vector<std::string> options;
  std::istringstream words(cmdline);
  std::string word;
  while (words >> word) {
    for (const char* prefix : {"iommu=", "intel_iommu=", "amd_iommu=", "iommu.passthrough=", "iommu.strict="}) {
      if (word.rfind(prefix, 0) == 0) options.push_back(word);
    }
  }
  return options;
}

model::Iommu read_iommu(const SysfsRoot& root, const PciTree& pci, const std::vector<std::string>& devices) {
  model::Iommu out;
  out.units = root.list("/sys/class/iommu");
  if (const auto cmdline = root.read_file("/proc/cmdline")) out.cmdline_options = iommu_cmdline_options(*cmdline);
  for (const auto& bdf : devices) {
    const PciDevice* device = pci.find(bdf);
    if (device == nullptr) continue;
    model::IommuDevice entry;
    entry.pci_bdf = bdf;
    const std::string link = device->sysfs_path + "/iommu_group";
    if (root.exists(link)) {
      entry.group = std::string(path_basename(root.resolve(link)));
      entry.type = root.read_attribute("/sys/kernel/iommu_groups/" + *entry.group + "/type");
    }
    out.devices.push_back(std::move(entry));
  }
  // The groups' type is what the DMA of each device goes through; the command line and the units only say what
  // was asked or what exists.
  for (const auto& d : out.devices) {
    if (d.type && is_translated(*d.type)) {
      out.mode = "translated";
      out.mode_basis = fmt::format("{}: iommu group {} type {}", d.pci_bdf, *d.group, *d.type);
      return out;
    }
  }
  for (const auto& d : out.devices) {
    if (d.type && *d.type == "identity") {
      out.mode = "passthrough";
      out.mode_basis = fmt::format("{}: iommu group {} type identity", d.pci_bdf, *d.group);
      return out;
    }
  }
  const std::string asked = cmdline_mode(out.cmdline_options);
  if (!asked.empty()) {
    out.mode = asked;
    out.mode_basis = "kernel command line";
  } else if (out.units.empty()) {
    out.mode = "off";
    out.mode_basis = "no IOMMU in /sys/class/iommu";
  } else {
    out.mode = "unknown";
    out.mode_basis = "IOMMU units present, but no group type readable for the GPUs and NICs";
  }
  return out;
}

}  // namespace linkscope::discover
