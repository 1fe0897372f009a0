#pragma once
// A real machine's sysfs/procfs tree with planted faults: the h200x2 snapshot (tests/fixtures/h200x2/
// sysfs-snapshot.tgz, a VM with 2 NVLinked H200s and a virtio NIC) extracted to a temporary directory, then
// patched file by file (ACS bits in a bridge's config space, an RDMA NIC, IOMMU groups, /proc/modules lines, ...).
// root() is what discovery reads as its sysfs root (`--sysfs-root`); the same tree packed is a planted capture.
// Paths are given as on the machine ("/proc/modules").
#include <cstdint>
#include <optional>
#include <string>

#include "support/temp_dir.hpp"

namespace linkscope::test {

// PCIe ACS control bits (PCIe base spec 7.7.8.3).
inline constexpr std::uint16_t kAcsSourceValidation = 1u << 0;
inline constexpr std::uint16_t kAcsRequestRedirect = 1u << 2;
inline constexpr std::uint16_t kAcsCompletionRedirect = 1u << 3;
inline constexpr std::uint16_t kAcsUpstreamForwarding = 1u << 4;

// 4096 bytes of config space (what root reads): vendor/device in the header, then an ACS extended capability at
// 0x100 with every capability bit and `acs_control`, followed by an ATS capability when `ats` is set (enabled or
// not).
std::string pcie_config_space(std::uint16_t vendor, std::uint16_t device, std::optional<std::uint16_t> acs_control,
                              std::optional<bool> ats);

struct PlantedPci {
  std::string class_id;        // "0x060400"
  std::string vendor, device;  // "0x10b5", "0xc010"
  int numa_node = -1;
};

class PlantedSysfs {
 public:
  PlantedSysfs();
  bool ok() const { return ok_; }
  const std::string& error() const { return error_; }
  std::string root() const { return dir_.path() + "/sysfs"; }
  // The file system path of a machine path.
  std::string host_path(const std::string& path) const { return root() + path; }

  void write(const std::string& path, const std::string& content) const;
  void append_line(const std::string& path, const std::string& line) const;
  void remove(const std::string& path) const;
  // A symbolic link at `link` to `target` (both machine paths), written relative as sysfs writes it.
  void link(const std::string& link, const std::string& target) const;
  // The machine path of a PCI function's directory ("/sys/devices/pci0000:00/0000:00:06.0").
  std::string pci_directory(const std::string& bdf) const;

  // A new PCI function below `parent_bdf` ("" = the root bus pci0000:00), listed in /sys/bus/pci/devices.
  void add_pci_function(const std::string& parent_bdf, const std::string& bdf, const PlantedPci& ids) const;
  // Moves a function (with everything below it) under `parent_bdf`, renamed `new_bdf`.
  void move_pci_function(const std::string& bdf, const std::string& parent_bdf, const std::string& new_bdf) const;
  void set_config(const std::string& bdf, const std::string& bytes) const;
  void set_numa_node(const std::string& bdf, int node) const;
  // An RDMA device on a PCI function: /sys/class/infiniband/NAME with a node GUID and one port.
  void add_rdma_device(const std::string& name, const std::string& bdf, const std::string& node_guid,
                       const std::string& port_state = "4: ACTIVE", const std::string& link_layer = "InfiniBand") const;
  // A PCIe switch under a new root port 0000:00:08.0: upstream port 0000:01:00.0, downstream ports 0000:02:0N.0 with
  // the GPUs at 0000:00:06.0 and 0000:00:07.0 moved below ports 0 and 1 (as 0000:03:00.0 and 0000:04:00.0) and a
  // new ConnectX function 0000:05:00.0 (RDMA device mlx5_0) below port 2. Config spaces as root reads them, ACS off.
  void plant_pcie_switch_with_gpus_and_nic() const;
  // IOMMU: a unit in /sys/class/iommu, and a device in group N of that type ("DMA-FQ", "identity").
  void add_iommu_unit(const std::string& name) const;
  void set_iommu_group(const std::string& bdf, int group, const std::string& type) const;
  // /proc/cpuinfo without the hypervisor flag (a bare-metal host).
  void remove_hypervisor_flag() const;

 private:
  TempDir dir_;
  bool ok_ = false;
  std::string error_;
};

}  // namespace linkscope::test
