#pragma once
// Builds small synthetic sysfs trees (files and relative symbolic links, as the kernel lays them out) in a
// temporary directory, for discovery tests that must not depend on the machine running them.
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>

#include "support/temp_dir.hpp"

namespace linkscope::test {

struct FakePci {
  std::string class_id = "0x060400";
  std::string vendor = "0x10b5";
  std::string device = "0xc010";
  std::string max_speed = "32.0 GT/s PCIe";
  std::string max_width = "16";
  std::string current_speed;  // default: max_speed
  std::string current_width;  // default: max_width
  std::string numa_node = "0";
  std::string cpulist = "0-15";
};

class FakeSysfs {
 public:
  explicit FakeSysfs(const TempDir& dir) : dir_(dir) {}
  const std::string& root() const { return dir_.path(); }

  // A sysfs attribute: `content` plus the newline the kernel writes.
  void file(const std::string& path, const std::string& content) const { dir_.write(strip(path), content + "\n"); }
  // A file written exactly as given.
  void raw(const std::string& path, const std::string& content) const { dir_.write(strip(path), content); }

  // A symbolic link at `path` whose target is `target` written as given (relative, like sysfs).
  void link(const std::string& path, const std::string& target) const {
    const std::filesystem::path full = std::filesystem::path(dir_.path()) / strip(path);
    std::filesystem::create_directories(full.parent_path());
    if (symlink(target.c_str(), full.c_str()) != 0) throw std::runtime_error("symlink failed: " + full.string());
  }

  // A PCI function at `device_path` ("/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0") plus its
  // /sys/bus/pci/devices entry.
  void pci(const std::string& device_path, const FakePci& spec) const {
    file(device_path + "/class", spec.class_id);
    file(device_path + "/vendor", spec.vendor);
    file(device_path + "/device", spec.device);
    file(device_path + "/subsystem_vendor", spec.vendor);
    file(device_path + "/subsystem_device", "0x0000");
    file(device_path + "/max_link_speed", spec.max_speed);
    file(device_path + "/max_link_width", spec.max_width);
    file(device_path + "/current_link_speed", spec.current_speed.empty() ? spec.max_speed : spec.current_speed);
    file(device_path + "/current_link_width", spec.current_width.empty() ? spec.max_width : spec.current_width);
    file(device_path + "/numa_node", spec.numa_node);
    file(device_path + "/local_cpulist", spec.cpulist);
    const std::string bdf = device_path.substr(device_path.rfind('/') + 1);
    link("/sys/bus/pci/devices/" + bdf, "../../.." + device_path.substr(4));  // "/sys/devices/..." -> "../../../devices/..."
  }

  void numa_node(int id, const std::string& cpulist, const std::string& cpumap, const std::string& distance) const {
    const std::string dir = "/sys/devices/system/node/node" + std::to_string(id);
    file(dir + "/cpulist", cpulist);
    file(dir + "/cpumap", cpumap);
    file(dir + "/distance", distance);
  }

 private:
  static std::string strip(const std::string& path) { return path.empty() || path[0] != '/' ? path : path.substr(1); }
  const TempDir& dir_;
};

// Two AMD sockets (NUMA 0: CPUs 0-15, NUMA 1: 16-31). Socket 0: a PCIe switch (upstream port 0000:01:00.0)
// with GPUs 0000:03:00.0 (x16) and 0000:04:00.0 (trained at x8 of x16) and InfiniBand HCA mlx5_0 at
// 0000:05:00.0 (port 1 ACTIVE, 400 Gb/s, netdev ib0). Socket 1: a switch 0000:81:00.0 with GPU 0000:83:00.0
// and a 100 GbE NIC ens5 at 0000:84:00.0. Virtual interfaces docker0 and lo.
inline void build_two_socket_machine(const FakeSysfs& fs) {
  const FakePci port{};
  FakePci gpu;
  gpu.class_id = "0x030200";
  gpu.vendor = "0x10de";
  gpu.device = "0x2335";
  FakePci hca;
  hca.class_id = "0x020700";
  hca.vendor = "0x15b3";
  hca.device = "0x1021";
  hca.max_speed = "16.0 GT/s PCIe";
  const std::string s0 = "/sys/devices/pci0000:00/0000:00:01.0";
  const std::string sw0 = s0 + "/0000:01:00.0";
  fs.pci(s0, port);
  fs.pci(sw0, port);
  fs.pci(sw0 + "/0000:02:00.0", port);
  fs.pci(sw0 + "/0000:02:01.0", port);
  fs.pci(sw0 + "/0000:02:02.0", port);
  fs.pci(sw0 + "/0000:02:00.0/0000:03:00.0", gpu);
  FakePci degraded = gpu;
  degraded.current_width = "8";
  fs.pci(sw0 + "/0000:02:01.0/0000:04:00.0", degraded);
  const std::string hca_path = sw0 + "/0000:02:02.0/0000:05:00.0";
  fs.pci(hca_path, hca);

  FakePci remote_port = port;
  remote_port.numa_node = "1";
  remote_port.cpulist = "16-31";
  FakePci remote_gpu = gpu;
  remote_gpu.numa_node = "1";
  remote_gpu.cpulist = "16-31";
  FakePci eth;
  eth.class_id = "0x020000";
  eth.vendor = "0x8086";
  eth.device = "0x1592";
  eth.max_speed = "16.0 GT/s PCIe";
  eth.numa_node = "1";
  eth.cpulist = "16-31";
  const std::string s1 = "/sys/devices/pci0000:80/0000:80:01.0";
  const std::string sw1 = s1 + "/0000:81:00.0";
  fs.pci(s1, remote_port);
  fs.pci(sw1, remote_port);
  fs.pci(sw1 + "/0000:82:00.0", remote_port);
  fs.pci(sw1 + "/0000:82:01.0", remote_port);
  fs.pci(sw1 + "/0000:82:00.0/0000:83:00.0", remote_gpu);
  const std::string eth_path = sw1 + "/0000:82:01.0/0000:84:00.0";
  fs.pci(eth_path, eth);

  // InfiniBand HCA with its IPoIB interface.
  fs.link("/sys/class/infiniband/mlx5_0", "../.." + hca_path.substr(4) + "/infiniband/mlx5_0");
  fs.link(hca_path + "/infiniband/mlx5_0/device", "../../../0000:05:00.0");
  fs.file(hca_path + "/infiniband/mlx5_0/node_guid", "0c42:a103:0012:3456");
  fs.file(hca_path + "/infiniband/mlx5_0/ports/1/state", "4: ACTIVE");
  fs.file(hca_path + "/infiniband/mlx5_0/ports/1/rate", "400 Gb/sec (4X NDR)");
  fs.file(hca_path + "/infiniband/mlx5_0/ports/1/link_layer", "InfiniBand");
  fs.link("/sys/class/net/ib0", "../.." + hca_path.substr(4) + "/net/ib0");
  fs.link(hca_path + "/net/ib0/device", "../../../0000:05:00.0");
  fs.file(hca_path + "/net/ib0/type", "32");
  fs.file(hca_path + "/net/ib0/operstate", "up");
  fs.file(hca_path + "/net/ib0/speed", "400000");

  // 100 GbE on socket 1, plus virtual interfaces that NCCL's socket transport must not pick.
  fs.link("/sys/class/net/ens5", "../.." + eth_path.substr(4) + "/net/ens5");
  fs.link(eth_path + "/net/ens5/device", "../../../0000:84:00.0");
  fs.file(eth_path + "/net/ens5/type", "1");
  fs.file(eth_path + "/net/ens5/operstate", "up");
  fs.file(eth_path + "/net/ens5/speed", "100000");
  fs.link("/sys/class/net/docker0", "../../devices/virtual/net/docker0");
  fs.file("/sys/devices/virtual/net/docker0/type", "1");
  fs.file("/sys/devices/virtual/net/docker0/operstate", "down");
  fs.link("/sys/class/net/lo", "../../devices/virtual/net/lo");
  fs.file("/sys/devices/virtual/net/lo/type", "772");

  fs.numa_node(0, "0-15", "00000000,0000ffff", "10 32");
  fs.numa_node(1, "16-31", "00000000,ffff0000", "32 10");
  std::string cpuinfo;
  for (int cpu = 0; cpu < 32; ++cpu) {
    cpuinfo += "processor\t: " + std::to_string(cpu) +
               "\nvendor_id\t: AuthenticAMD\ncpu family\t: 25\nmodel\t\t: 1\nmodel name\t: AMD EPYC 7763 64-Core "
               "Processor\n\n";
  }
  fs.raw("/proc/cpuinfo", cpuinfo);
}

}  // namespace linkscope::test
