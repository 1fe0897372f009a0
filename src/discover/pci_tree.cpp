#include "discover/pci_tree.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>

#include <fmt/format.h>

#include "model/link_rate.hpp"

namespace linkscope::discover {

namespace {

bool is_hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }

std::optional<unsigned long> parse_hex_field(std::string_view text, std::size_t max_digits) {
  if (text.empty() || text.size() > max_digits) return std::nullopt;
  unsigned long value = 0;
  for (char c : text) {
    if (!is_hex(c)) return std::nullopt;
    value = value * 16 + static_cast<unsigned long>(std::isdigit(static_cast<unsigned char>(c))
                                                        ? c - '0'
                                                        : std::tolower(static_cast<unsigned char>(c)) - 'a' + 10);
  }
  return value;
}

// The whole attribute as one integer in [low, high] (decimal or 0x hex); anything else is not a value the kernel
// writes there (a width of 4294967297 must not wrap around to 1 and look like a degraded link).
std::optional<long> parse_integer(const std::optional<std::string>& text, long low, long high) {
  if (!text || text->empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const long value = std::strtol(text->c_str(), &end, 0);
  if (end == text->c_str() || errno == ERANGE) return std::nullopt;
  while (*end == ' ' || *end == '\t' || *end == '\n') ++end;
  if (*end != '\0' || value < low || value > high) return std::nullopt;
  return value;
}

// PCIe links are x1 ... x32.
constexpr long kMaxLinkWidth = 32;
// The kernel's MAX_NUMNODES is at most 1024; -1 means "no NUMA information".
constexpr long kMaxNumaNode = 1023;

}  // namespace

std::optional<int> pcie_generation_from_speed(std::string_view speed) { return model::pcie_generation_of_speed(speed); }

std::optional<std::string> canonical_bdf(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) text.remove_suffix(1);
  const auto dot = text.rfind('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const auto function = parse_hex_field(text.substr(dot + 1), 1);
  std::string_view head = text.substr(0, dot);
  const auto last_colon = head.rfind(':');
  if (last_colon == std::string_view::npos) return std::nullopt;
  const auto device = parse_hex_field(head.substr(last_colon + 1), 2);
  head = head.substr(0, last_colon);
  std::optional<unsigned long> domain = 0UL;
  std::optional<unsigned long> bus;
  const auto first_colon = head.rfind(':');
  if (first_colon == std::string_view::npos) {
    bus = parse_hex_field(head, 2);
  } else {
    bus = parse_hex_field(head.substr(first_colon + 1), 2);
    domain = parse_hex_field(head.substr(0, first_colon), 8);
  }
  if (!function || !device || !bus || !domain || *device > 0x1f || *function > 7) return std::nullopt;
  return fmt::format("{:04x}:{:02x}:{:02x}.{:x}", *domain, *bus, *device, *function);
}

bool is_sysfs_bdf(std::string_view c) {
  if (c.size() != 12 || c[4] != ':' || c[7] != ':' || c[10] != '.') return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11}) {
    if (!is_hex(c[i])) return false;
  }
  return true;
}

std::optional<std::uint32_t> PciDevice::class_code() const {
  if (!class_id) return std::nullopt;
  const auto value = parse_integer(class_id, 0, 0xffffff);
  if (!value || *value < 0) return std::nullopt;
  return static_cast<std::uint32_t>(*value);
}

bool PciDevice::is_bridge() const {
  const auto code = class_code();
  return code && (*code >> 8) == 0x0604;
}

bool PciDevice::is_display() const {
  const auto code = class_code();
  return code && (*code >> 16) == 0x03;
}

bool PciDevice::is_network() const {
  const auto code = class_code();
  return code && (*code >> 16) == 0x02;
}

std::optional<int> PciDevice::numa_node_id() const {
  const auto value = parse_integer(numa_node, -1, kMaxNumaNode);
  return value ? std::optional<int>(static_cast<int>(*value)) : std::nullopt;
}

std::optional<int> PciDevice::current_width() const {
  const auto value = parse_integer(current_link_width, 1, kMaxLinkWidth);
  return value ? std::optional<int>(static_cast<int>(*value)) : std::nullopt;
}

std::optional<int> PciDevice::max_width() const {
  const auto value = parse_integer(max_link_width, 1, kMaxLinkWidth);
  return value ? std::optional<int>(static_cast<int>(*value)) : std::nullopt;
}

std::optional<int> PciDevice::current_generation() const {
  return current_link_speed ? pcie_generation_from_speed(*current_link_speed) : std::nullopt;
}

std::optional<int> PciDevice::max_generation() const {
  return max_link_speed ? pcie_generation_from_speed(*max_link_speed) : std::nullopt;
}

PciTree::PciTree(std::vector<PciDevice> devices) : devices_(std::move(devices)) {
  for (std::size_t i = 0; i < devices_.size(); ++i) {
    const auto key = canonical_bdf(devices_[i].bdf);
    by_bdf_.emplace(key ? *key : devices_[i].bdf, i);
    by_path_.emplace(devices_[i].sysfs_path, i);
  }
}

const PciDevice* PciTree::find(std::string_view bdf) const {
  const auto key = canonical_bdf(bdf);
  if (!key) return nullptr;
  const auto it = by_bdf_.find(*key);
  return it == by_bdf_.end() ? nullptr : &devices_[it->second];
}

const PciDevice* PciTree::find_by_path(std::string_view sysfs_path) const {
  const auto it = by_path_.find(sysfs_path);
  return it == by_path_.end() ? nullptr : &devices_[it->second];
}

const PciDevice* PciTree::enclosing_device(std::string_view sysfs_path) const {
  std::string path(sysfs_path);
  while (path.size() > 1) {
    if (const PciDevice* device = find_by_path(path)) return device;
    path = std::string(path_dirname(path));
  }
  return nullptr;
}

const PciDevice* PciTree::upstream_port(const PciDevice& device) const {
  return find_by_path(path_dirname(device.sysfs_path));
}

std::vector<std::string> PciTree::ancestors(const PciDevice& device) const {
  std::vector<std::string> chain;
  std::string_view path = path_dirname(device.sysfs_path);
  while (path.size() > 1) {
    const std::string_view name = path_basename(path);
    if (!is_sysfs_bdf(name)) break;
    chain.emplace_back(name);
    path = path_dirname(path);
  }
  return chain;
}

std::string PciTree::root_complex(const PciDevice& device) const {
  std::string_view path = device.sysfs_path;
  while (path.size() > 1) {
    const std::string_view name = path_basename(path);
    if (name.rfind("pci", 0) == 0 && !is_sysfs_bdf(name)) return std::string(name);
    path = path_dirname(path);
  }
  return {};
}

NcclPciParent PciTree::nccl_parent(const PciDevice& device) const {
  // NCCL (xml.cc, ncclTopoGetXmlFromSys) cuts the realpath one component at a time: a non-BDF parent is
  // the root complex (a CPU); otherwise the component two levels up is the switch's upstream port.
  NcclPciParent parent;
  std::string_view path = device.sysfs_path;
  for (int level = 1; path.size() > 1; ++level) {
    path = path_dirname(path);
    const std::string_view name = path_basename(path);
    if (!is_sysfs_bdf(name) || path == "/") {
      parent.is_cpu = true;
      parent.numa_id = device.numa_node.value_or("");
      return parent;
    }
    if (level == 2) {
      parent.bdf = std::string(name);
      return parent;
    }
  }
  parent.is_cpu = true;
  parent.numa_id = device.numa_node.value_or("");
  return parent;
}

std::string PciTree::relation(const PciDevice& a, const PciDevice& b) const {
  // The switches (upstream ports) above each device, nearest first, as NCCL's parent rule finds them.
  const auto switches = [&](const PciDevice& device) {
    std::vector<std::string> chain;
    const PciDevice* current = &device;
    for (NcclPciParent parent = nccl_parent(*current); !parent.is_cpu; parent = nccl_parent(*current)) {
      chain.push_back(parent.bdf);
      current = find(parent.bdf);
      if (current == nullptr) break;
    }
    return chain;
  };
  const std::vector<std::string> above_a = switches(a);
  const std::vector<std::string> above_b = switches(b);
  for (std::size_t i = 0; i < above_a.size(); ++i) {
    const auto j = std::find(above_b.begin(), above_b.end(), above_a[i]);
    if (j == above_b.end()) continue;
    const std::size_t traversed = i + static_cast<std::size_t>(j - above_b.begin()) + 1;
    return traversed <= 1 ? "PIX" : "PXB";
  }
  if (root_complex(a) == root_complex(b)) return "PHB";
  const int node_a = a.numa_node_id().value_or(-1);
  const int node_b = b.numa_node_id().value_or(-1);
  return node_a == node_b ? "NODE" : "SYS";
}

PciTree read_pci_tree(const SysfsRoot& root) {
  std::vector<PciDevice> devices;
  for (const auto& name : root.list("/sys/bus/pci/devices")) {
    PciDevice device;
    device.bdf = name;
    device.sysfs_path = root.resolve("/sys/bus/pci/devices/" + name);
    const auto attribute = [&](const char* file) { return root.read_attribute(device.sysfs_path + "/" + file); };
    device.class_id = attribute("class");
    device.vendor = attribute("vendor");
    device.device = attribute("device");
    device.subsystem_vendor = attribute("subsystem_vendor");
    device.subsystem_device = attribute("subsystem_device");
    device.current_link_speed = attribute("current_link_speed");
    device.max_link_speed = attribute("max_link_speed");
    device.current_link_width = attribute("current_link_width");
    device.max_link_width = attribute("max_link_width");
    device.numa_node = attribute("numa_node");
    device.local_cpulist = attribute("local_cpulist");
    devices.push_back(std::move(device));
  }
  return PciTree(std::move(devices));
}

}  // namespace linkscope::discover
