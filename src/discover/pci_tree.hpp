#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "discover/sysfs_root.hpp"

namespace linkscope::discover {

// One PCI function as sysfs shows it. Attributes are kept as the kernel wrote them (NCCL copies these
// strings into its topology XML), with parsed helpers beside them.
struct PciDevice {
  std::string bdf;         // "0000:1a:00.0", as sysfs names it
  std::string sysfs_path;  // resolved: "/sys/devices/pci0000:17/0000:17:01.0/0000:1a:00.0"
  std::optional<std::string> class_id, vendor, device, subsystem_vendor, subsystem_device;
  std::optional<std::string> current_link_speed, max_link_speed, current_link_width, max_link_width;
  std::optional<std::string> numa_node, local_cpulist;

  std::optional<std::uint32_t> class_code() const;  // 0x030200
  bool is_bridge() const;                           // class 0x0604xx
  bool is_display() const;                          // class 0x03xxxx (what NCCL calls a GPU)
  bool is_network() const;                          // class 0x02xxxx
  std::optional<int> numa_node_id() const;          // -1 stays -1 (no NUMA information)
  std::optional<int> current_width() const;
  std::optional<int> max_width() const;
  std::optional<int> current_generation() const;    // from "32.0 GT/s PCIe"
  std::optional<int> max_generation() const;
};

// PCIe generation for a sysfs link speed string ("2.5 GT/s" = 1 ... "64.0 GT/s PCIe" = 6).
std::optional<int> pcie_generation_from_speed(std::string_view speed);

// Canonical "dddd:bb:dd.f" (lower case; domain at least 4 digits) for any spelling of a bus id:
// "00000000:1A:00.0" (NVML), "0000:1a:00.0" (sysfs), "1a:00.0". nullopt when it is not a bus id.
std::optional<std::string> canonical_bdf(std::string_view text);
// True for exactly "BBBB:BB:DD.F" in hex, the test NCCL applies to sysfs path components.
bool is_sysfs_bdf(std::string_view component);

// Where NCCL attaches a PCI device in its topology XML: to the switch upstream port two levels up, or to a
// CPU (NUMA node) when the walk reaches the root complex (topology spec §4.10).
struct NcclPciParent {
  bool is_cpu = false;
  std::string bdf;       // when !is_cpu: the parent switch port
  std::string numa_id;   // when is_cpu: this device's numa_node attribute as written ("-1", "0", "")
};

// All PCI functions of a machine.
class PciTree {
 public:
  PciTree() = default;
  explicit PciTree(std::vector<PciDevice> devices);

  const std::vector<PciDevice>& devices() const { return devices_; }
  // Lookup by any bus id spelling (canonicalized).
  const PciDevice* find(std::string_view bdf) const;
  // Lookup by resolved sysfs path.
  const PciDevice* find_by_path(std::string_view sysfs_path) const;
  // The PCI function whose directory encloses `sysfs_path` (a NIC's virtio child, a net device), if any.
  const PciDevice* enclosing_device(std::string_view sysfs_path) const;
  // The device one directory up (the port this device hangs from), if it is a PCI function.
  const PciDevice* upstream_port(const PciDevice& device) const;
  // BDFs of the PCI functions above `device`, nearest first (ports and switches on the way to the root).
  std::vector<std::string> ancestors(const PciDevice& device) const;
  // The root complex directory name ("pci0000:17").
  std::string root_complex(const PciDevice& device) const;
  NcclPciParent nccl_parent(const PciDevice& device) const;
  // The PCIe relation of two devices as `nvidia-smi topo -m` names it: "PIX" (at most one switch between
  // them), "PXB" (several switches), "PHB" (same root complex), "NODE" (same NUMA node), "SYS".
  std::string relation(const PciDevice& a, const PciDevice& b) const;

 private:
  std::vector<PciDevice> devices_;
  std::map<std::string, std::size_t, std::less<>> by_bdf_;
  std::map<std::string, std::size_t, std::less<>> by_path_;
};

// Reads every function listed in /sys/bus/pci/devices.
PciTree read_pci_tree(const SysfsRoot& root);

}  // namespace linkscope::discover
