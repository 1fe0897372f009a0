#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/environment.hpp"
#include "discover/host_facts.hpp"

namespace linkscope::discover {

// One network device as NCCL's built-in net plugin would expose it (ncclNetProperties_t), the input of
// the <nic><net .../></nic> elements of the topology XML.
struct NcclNetDevice {
  std::string name;                     // "mlx5_0" (IB) or "eth0" (Socket)
  std::optional<std::string> pci_path;  // the PCI function's sysfs path; empty: not a PCI device (virtio, ...)
  int dev = 0;
  int latency = 0;
  int speed_mbit_s = 0;
  int port = 0;
  unsigned long long guid = 0;
  std::optional<int> maxconn;           // unknown for IB without verbs (not written then)
  int gdr = 0;
};

struct NetSelection {
  std::string plugin;  // "IB", "Socket" or "" (none usable)
  std::vector<NcclNetDevice> devices;
  std::vector<std::string> notes;  // assumptions the selection had to make
};

// What NCCL's IB transport (RDMA ports that are ACTIVE, NCCL_IB_HCA, NCCL_IB_DISABLE) or, without it, its
// socket transport (NCCL_SOCKET_IFNAME; interfaces with an address, "ib*" first, never docker* or lo)
// would use on this host.
NetSelection select_nccl_nets(const HostFacts& host, const Environment& env);

// NCCL_IB_HCA / NCCL_SOCKET_IFNAME matching: "a,b" prefixes, "^a" excludes, "=a" exact; "name:port" entries
// (IB) restrict the port. Empty list = everything matches.
bool nccl_name_matches(const std::string& list, const std::string& name, int port);

}  // namespace linkscope::discover
