#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

// Which NICs NCCL's network transport used, from its NCCL_DEBUG=INFO log: the devices its net plugin lists
// ("NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/RoCE ..."; "NET/Socket : Using [0]eth0:10.0.0.1<0>"), whether
// GPUDirect RDMA is enabled per HCA, and the device index of every NET connection ("via NET/IB/1/GDRDMA").
namespace linkscope::cluster {

struct LoggedNetDevice {
  int index = 0;
  std::string plugin;         // "IB", "Socket"
  std::string name;           // "mlx5_0", "eth0"
  std::optional<int> port;    // IB port
  std::optional<int> rail, plane;  // IB, NCCL 2.30.7: "[0]mlx5_0:1:3:0/IB" (rail 3, plane 0) when the device has them
  std::optional<bool> gdr;    // "NET/<plugin> : GPU Direct RDMA Enabled/Disabled for HCA N"
};

// The devices of the last "NET/<plugin> : Using" line of the log (a process lists them once).
std::vector<LoggedNetDevice> logged_net_devices(std::string_view log);

struct NicUse {
  std::string nic;        // "mlx5_0:1" (IB: device and port) or "eth0"; "NET device 3" when the log lists none
  std::string transport;  // "NET/IB/GDRDMA", "NET/Socket" (runtime::transport_label)
  int connections = 0;
};

// The NICs the NET connections of `log` went through, most used first; empty when NCCL connected nothing
// over the network. NCCL lists its net devices once per process: `device_list_log` (the process's whole log)
// names them when `log` is only the part written by one communicator.
std::vector<NicUse> nics_used(std::string_view log, std::string_view device_list_log = {});

}  // namespace linkscope::cluster
