#include "discover/pcie_paths.hpp"

#include <algorithm>

#include "discover/pcie_config.hpp"

namespace linkscope::discover {

namespace {

bool contains(const std::vector<std::string>& list, const std::string& value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}

std::string port_role(const PciTree& pci, const PciDevice& port) {
  return pci.upstream_port(port) == nullptr ? "root-port" : "switch-port";
}

}  // namespace

std::vector<std::string> ports_between(const PciTree& pci, const PciDevice& a, const PciDevice& b) {
  const auto up = pci.ancestors(a);
  const auto down = pci.ancestors(b);
  std::vector<std::string> ports;
  for (const auto& bdf : up) {
    if (!contains(down, bdf)) ports.push_back(bdf);
  }
  for (auto it = down.rbegin(); it != down.rend(); ++it) {
    if (!contains(up, *it)) ports.push_back(*it);
  }
  return ports;
}

model::PciFunctionEvidence pci_function_evidence(const SysfsRoot& root, const PciDevice& device, std::string role) {
  model::PciFunctionEvidence out;
  out.pci_bdf = device.bdf;
  out.role = std::move(role);
  out.vendor = device.vendor;
  out.device = device.device;
  const auto config = root.read_file(device.sysfs_path + "/config");
  if (!config) {
    out.extended_config_reason = "no config file";
  } else if (config->size() <= 64) {
    out.extended_config_reason = "extended config space not readable (not root)";
  } else if (!has_extended_config(*config)) {
    out.extended_config_reason = "no extended config space (256-byte conventional PCI config)";
  } else {
    out.extended_config = true;
    if (const auto acs = acs_registers(*config)) {
      out.acs =
          model::PcieAcs{static_cast<int>(acs->offset), acs_bit_names(acs->capability), acs_bit_names(acs->control)};
    }
    if (const auto ats = ats_registers(*config)) out.ats = model::PcieAts{static_cast<int>(ats->offset), ats->enabled};
  }
  return out;
}

PciePathEvidence read_pcie_paths(const SysfsRoot& root, const PciTree& pci, const std::vector<std::string>& gpus,
                                 const std::vector<PcieEndpoint>& nics) {
  PciePathEvidence out;
  std::vector<std::string> read;
  const auto add_function = [&](const PciDevice& device, const std::string& role) {
    if (contains(read, device.bdf)) return;
    read.push_back(device.bdf);
    out.functions.push_back(pci_function_evidence(root, device, role));
  };
  const auto add_path = [&](const PciDevice& a, const PciDevice& b, const std::string& nic) {
    model::PciPath path{a.bdf, b.bdf, std::nullopt, pci.relation(a, b), ports_between(pci, a, b)};
    if (!nic.empty()) path.nic = nic;
    out.paths.push_back(std::move(path));
  };
  std::vector<const PciDevice*> gpu_devices;
  for (const auto& bdf : gpus) {
    if (const PciDevice* device = pci.find(bdf)) {
      gpu_devices.push_back(device);
      add_function(*device, "gpu");
    }
  }
  for (std::size_t i = 0; i < gpu_devices.size(); ++i) {
    for (std::size_t j = i + 1; j < gpu_devices.size(); ++j) add_path(*gpu_devices[i], *gpu_devices[j], "");
  }
  for (const auto& nic : nics) {
    const PciDevice* device = pci.find(nic.pci_bdf);
    if (device == nullptr) continue;
    add_function(*device, "nic");
    for (const PciDevice* gpu : gpu_devices) add_path(*gpu, *device, nic.nic);
  }
  for (const auto& path : out.paths) {
    for (const auto& bdf : path.ports) {
      if (const PciDevice* port = pci.find(bdf)) add_function(*port, port_role(pci, *port));
    }
  }
  return out;
}

}  // namespace linkscope::discover
