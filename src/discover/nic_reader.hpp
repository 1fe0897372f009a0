#pragma once
#include <optional>
#include <string>
#include <vector>

#include "discover/pci_tree.hpp"
#include "discover/sysfs_root.hpp"

namespace linkscope::discover {

// One port of an RDMA device (/sys/class/infiniband/X/ports/N).
struct NicPort {
  int port = 0;
  std::string state;                  // "ACTIVE", "DOWN", "INIT", ... ("4: ACTIVE" without the number)
  std::optional<double> rate_gbit_s;  // "400 Gb/sec (4X NDR)" -> 400 (bits, as the kernel reports)
  std::string link_layer;             // "InfiniBand" or "Ethernet" (RoCE)
};

// A network device: an RDMA device from /sys/class/infiniband, or an interface from /sys/class/net.
struct NicDevice {
  std::string name;                        // "mlx5_0", "eth0"
  std::string kind;                        // "infiniband", "ethernet", "ipoib", "other"
  std::optional<std::string> device_path;  // the bus device behind it, resolved
  std::string bus;                         // "pci", "virtio", "virtual", "" (unknown)
  std::optional<std::string> pci_bdf;      // the PCI function carrying it (a virtio NIC's virtio PCI function)
  std::optional<int> numa_node;
  // RDMA devices only
  std::vector<NicPort> ports;
  std::optional<std::string> node_guid;    // "0c42:a103:0012:3456"
  std::vector<std::string> net_devices;    // interfaces on the same device (mlx5_0 -> ib0)
  // Interfaces only
  std::optional<int> ifindex;              // kernel interface index (the order getifaddrs lists interfaces)
  std::optional<std::string> operstate;    // "up", "down", "unknown"
  std::optional<long> speed_mbit_s;        // only a positive /sys/class/net/X/speed
  bool is_virtual = false;                 // under /sys/devices/virtual (bridges, bonds, ifb, veth)
  std::optional<bool> has_address;         // an IP address is configured (live machine only)
};

// RDMA devices first (name order), then interfaces other than loopback (name order).
std::vector<NicDevice> read_nics(const SysfsRoot& root, const PciTree& pci);

}  // namespace linkscope::discover
