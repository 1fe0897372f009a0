#include "discover/nccl_net_selection.hpp"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "core/text.hpp"

namespace linkscope::discover {

namespace {

// node_guid "0c42:a103:0012:3456" is big-endian; NCCL keeps verbs' __be64 as is, so on a little-endian host
// the number it prints is the byte-swapped value.
unsigned long long guid_as_nccl_prints(const std::string& node_guid) {
  std::string hex;
  for (char c : node_guid) {
    if (c != ':') hex += c;
  }
  const unsigned long long big_endian = std::strtoull(hex.c_str(), nullptr, 16);
  return __builtin_bswap64(big_endian);
}

NetSelection select_ib(const HostFacts& host, const Environment& env) {
  NetSelection selection;
  selection.plugin = "IB";
  const std::string hca = env.get("NCCL_IB_HCA").value_or("");
  for (const auto& nic : host.nics) {
    if (nic.kind != "infiniband") continue;
    for (const auto& port : nic.ports) {
      if (port.state != "ACTIVE" || !nccl_name_matches(hca, nic.name, port.port)) continue;
      NcclNetDevice device;
      // One device per active port, all named after the HCA as NCCL does (the XML then keeps one <net> per
      // HCA name: a second port of the same HCA only renumbers it).
      device.name = nic.name;
      if (nic.bus == "pci" && nic.device_path) device.pci_path = nic.device_path;
      device.dev = static_cast<int>(selection.devices.size());
      device.speed_mbit_s = port.rate_gbit_s ? static_cast<int>(*port.rate_gbit_s * 1000.0) : 0;
      device.port = port.port;
      device.guid = nic.node_guid ? guid_as_nccl_prints(*nic.node_guid) : static_cast<unsigned long long>(device.dev);
      device.gdr = host.evidence.peer_memory.registered ? 1 : 0;
      selection.devices.push_back(std::move(device));
    }
  }
  if (!selection.devices.empty()) {
    selection.notes.push_back(host.evidence.peer_memory.registered
                                  ? "IB NICs marked gdr=1: a GPUDirect peer-memory module is loaded"
                                  : "IB NICs marked gdr=0: no peer-memory module is loaded (NCCL may still enable "
                                    "GPUDirect RDMA through DMA-BUF, which sysfs cannot show)");
    selection.notes.push_back("IB <net maxconn> left out: it comes from the HCA's queue-pair limit (verbs), which "
                              "does not change the model");
  }
  return selection;
}

NetSelection select_sockets(const HostFacts& host, const Environment& env, bool live) {
  NetSelection selection;
  selection.plugin = "Socket";
  std::vector<const NicDevice*> candidates;
  for (const auto& nic : host.nics) {
    if (nic.kind == "infiniband") continue;
    // NCCL needs an address on the interface. Addresses are only known live; a snapshot uses the
    // interfaces that have a device behind them.
    const bool usable = live ? nic.has_address.value_or(false) : !nic.is_virtual;
    if (usable) candidates.push_back(&nic);
  }
  std::stable_sort(candidates.begin(), candidates.end(), [](const NicDevice* a, const NicDevice* b) {
    return a->ifindex.value_or(1 << 30) < b->ifindex.value_or(1 << 30);
  });
  const auto pick = [&](const std::string& list) {
    std::vector<const NicDevice*> picked;
    for (const NicDevice* nic : candidates) {
      if (nccl_name_matches(list, nic->name, -1)) picked.push_back(nic);
    }
    return picked;
  };
  std::vector<const NicDevice*> chosen;
  if (const auto ifname = env.get("NCCL_SOCKET_IFNAME")) {
    chosen = pick(*ifname);
  } else {
    chosen = pick("ib");  // NCCL prefers IPoIB interfaces, then anything but docker* and lo
    if (chosen.empty()) chosen = pick("^docker,lo");
  }
  for (const NicDevice* nic : chosen) {
    NcclNetDevice device;
    device.name = nic->name;
    if (nic->bus == "pci" && nic->device_path) device.pci_path = nic->device_path;
    device.dev = static_cast<int>(selection.devices.size());
    device.speed_mbit_s = nic->speed_mbit_s ? static_cast<int>(*nic->speed_mbit_s) : 10000;  // NCCL's default
    device.guid = static_cast<unsigned long long>(device.dev);
    device.maxconn = 65536;
    device.gdr = 0;
    selection.devices.push_back(std::move(device));
  }
  if (!live && !selection.devices.empty()) {
    selection.notes.push_back("socket interfaces chosen without address information (a snapshot): every interface "
                              "with a device behind it is assumed to have one");
  }
  return selection;
}

}  // namespace

bool nccl_name_matches(const std::string& list_text, const std::string& name, int port) {
  if (list_text.empty()) return true;
  std::string list = list_text;
  bool exclude = false, exact = false;
  if (!list.empty() && list[0] == '^') {
    exclude = true;
    list.erase(0, 1);
  }
  if (!list.empty() && list[0] == '=') {
    exact = true;
    list.erase(0, 1);
  }
  bool matched = false;
  for (const auto& entry : split_list(list, ',')) {
    if (entry.empty()) continue;
    std::string entry_name = entry;
    int entry_port = -1;
    if (const auto colon = entry.find(':'); colon != std::string::npos) {
      entry_name = entry.substr(0, colon);
      entry_port = std::atoi(entry.c_str() + colon + 1);
    }
    const bool name_ok = exact ? name == entry_name : name.rfind(entry_name, 0) == 0;
    const bool port_ok = entry_port == -1 || port == -1 || entry_port == port;
    if (name_ok && port_ok) {
      matched = true;
      break;
    }
  }
  return matched != exclude;
}

NetSelection select_nccl_nets(const HostFacts& host, const Environment& env) {
  const bool ib_disabled = env.get("NCCL_IB_DISABLE").value_or("0") == "1";
  const auto net = env.get("NCCL_NET");
  if (!ib_disabled && (!net || *net == "IB")) {
    NetSelection ib = select_ib(host, env);
    if (!ib.devices.empty()) return ib;
  }
  NetSelection sockets = select_sockets(host, env, host.sysfs_root == "/");
  if (sockets.devices.empty()) {
    sockets.plugin = "";
    sockets.notes.push_back("no network device NCCL would use: the XML has no <nic>");
  }
  return sockets;
}

}  // namespace linkscope::discover
