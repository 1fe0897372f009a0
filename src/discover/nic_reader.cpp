#include "discover/nic_reader.hpp"

#include <ifaddrs.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdlib>
#include <set>

namespace linkscope::discover {

namespace {

bool starts_with(std::string_view text, std::string_view prefix) { return text.rfind(prefix, 0) == 0; }

// The device directory behind a class entry: its "device" link, or, when a snapshot did not keep that
// link, the directory the class entry sits in (".../0000:00:03.0/virtio2/net/eth0" -> ".../virtio2").
std::optional<std::string> device_directory(const SysfsRoot& root, const std::string& class_entry,
                                            const std::string& resolved_entry) {
  const std::string link = class_entry + "/device";
  if (root.exists(link)) return root.resolve(link);
  const std::string_view up = path_dirname(path_dirname(resolved_entry));
  if (starts_with(up, "/sys/devices/") && !starts_with(up, "/sys/devices/virtual")) return std::string(up);
  return std::nullopt;
}

std::string bus_of(const SysfsRoot& root, const std::string& device_path) {
  const std::string subsystem = device_path + "/subsystem";
  if (root.exists(subsystem)) return std::string(path_basename(root.resolve(subsystem)));
  // Snapshots often lack the subsystem link: infer it from the directory name.
  const std::string_view name = path_basename(device_path);
  if (starts_with(device_path, "/sys/devices/virtual")) return "virtual";
  if (is_sysfs_bdf(name)) return "pci";
  if (starts_with(name, "virtio")) return "virtio";
  return "";
}

void fill_bus_facts(const SysfsRoot& root, const PciTree& pci, NicDevice& nic) {
  if (!nic.device_path) return;
  nic.bus = bus_of(root, *nic.device_path);
  if (const PciDevice* function = pci.enclosing_device(*nic.device_path)) {
    nic.pci_bdf = function->bdf;
    nic.numa_node = function->numa_node_id();
  }
}

std::set<std::string> interfaces_with_address() {
  std::set<std::string> names;
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return names;
  for (const ifaddrs* entry = list; entry != nullptr; entry = entry->ifa_next) {
    if (entry->ifa_addr == nullptr || entry->ifa_name == nullptr) continue;
    const int family = entry->ifa_addr->sa_family;
    if (family == AF_INET6) {
      // NCCL's socket transport skips IPv6 link-local addresses.
      const auto* address = reinterpret_cast<const sockaddr_in6*>(entry->ifa_addr);
      if (IN6_IS_ADDR_LINKLOCAL(&address->sin6_addr)) continue;
    }
    if (family == AF_INET || family == AF_INET6) names.insert(entry->ifa_name);
  }
  freeifaddrs(list);
  return names;
}

NicDevice read_rdma_device(const SysfsRoot& root, const PciTree& pci, const std::string& name) {
  const std::string entry = "/sys/class/infiniband/" + name;
  NicDevice nic;
  nic.name = name;
  nic.kind = "infiniband";
  nic.device_path = device_directory(root, entry, root.resolve(entry));
  fill_bus_facts(root, pci, nic);
  nic.node_guid = root.read_attribute(entry + "/node_guid");
  for (const auto& port_name : root.list(entry + "/ports")) {
    const std::string dir = entry + "/ports/" + port_name;
    NicPort port;
    port.port = std::atoi(port_name.c_str());
    if (const auto state = root.read_attribute(dir + "/state")) {
      const auto colon = state->find(':');
      port.state = colon == std::string::npos ? *state : state->substr(colon + 1);
      while (!port.state.empty() && port.state.front() == ' ') port.state.erase(0, 1);
    }
    if (const auto rate = root.read_attribute(dir + "/rate")) {
      char* end = nullptr;
      const double gbit = std::strtod(rate->c_str(), &end);
      if (end != rate->c_str() && gbit > 0) port.rate_gbit_s = gbit;
    }
    port.link_layer = root.read_attribute(dir + "/link_layer").value_or("");
    nic.ports.push_back(std::move(port));
  }
  if (nic.device_path) nic.net_devices = root.list(*nic.device_path + "/net");
  return nic;
}

NicDevice read_interface(const SysfsRoot& root, const PciTree& pci, const std::string& name,
                         const std::set<std::string>* addressed) {
  const std::string entry = "/sys/class/net/" + name;
  const std::string resolved = root.resolve(entry);
  NicDevice nic;
  nic.name = name;
  nic.is_virtual = starts_with(resolved, "/sys/devices/virtual");
  const auto type = root.read_attribute(entry + "/type");
  if (type) {
    nic.kind = *type == "1" ? "ethernet" : *type == "32" ? "ipoib" : "other";
  } else {
    nic.kind = starts_with(name, "ib") ? "ipoib" : "ethernet";
  }
  nic.device_path = device_directory(root, entry, resolved);
  if (nic.is_virtual) {
    nic.bus = "virtual";
  } else {
    fill_bus_facts(root, pci, nic);
  }
  if (const auto index = root.read_attribute(entry + "/ifindex")) nic.ifindex = std::atoi(index->c_str());
  nic.operstate = root.read_attribute(entry + "/operstate");
  if (const auto speed = root.read_attribute(entry + "/speed")) {
    const long value = std::strtol(speed->c_str(), nullptr, 10);
    if (value > 0 && value <= 10'000'000) nic.speed_mbit_s = value;  // up to 10 Tb/s; -1 means "unknown"
  }
  if (addressed != nullptr) nic.has_address = addressed->count(name) > 0;
  return nic;
}

}  // namespace

std::vector<NicDevice> read_nics(const SysfsRoot& root, const PciTree& pci) {
  std::vector<NicDevice> nics;
  for (const auto& name : root.list("/sys/class/infiniband")) nics.push_back(read_rdma_device(root, pci, name));
  // Addresses come from the running kernel, so they only describe the live machine, not a snapshot.
  const std::set<std::string> addressed = root.is_live() ? interfaces_with_address() : std::set<std::string>{};
  for (const auto& name : root.list("/sys/class/net")) {
    if (name == "lo") continue;
    nics.push_back(read_interface(root, pci, name, root.is_live() ? &addressed : nullptr));
  }
  return nics;
}

}  // namespace linkscope::discover
