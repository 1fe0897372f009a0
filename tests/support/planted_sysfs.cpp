#include "support/planted_sysfs.hpp"

#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "core/subprocess.hpp"
#include "support/run_command.hpp"

namespace linkscope::test {

namespace fs = std::filesystem;

namespace {

void put16(std::string& bytes, std::size_t offset, std::uint16_t value) {
  bytes[offset] = static_cast<char>(value & 0xff);
  bytes[offset + 1] = static_cast<char>(value >> 8);
}

void put32(std::string& bytes, std::size_t offset, std::uint32_t value) {
  put16(bytes, offset, static_cast<std::uint16_t>(value & 0xffff));
  put16(bytes, offset + 2, static_cast<std::uint16_t>(value >> 16));
}

std::uint16_t hex16(const std::string& text) { return static_cast<std::uint16_t>(std::stoul(text, nullptr, 16)); }

}  // namespace

std::string pcie_config_space(std::uint16_t vendor, std::uint16_t device, std::optional<std::uint16_t> acs_control,
                              std::optional<bool> ats) {
  std::string bytes(4096, '\0');
  put16(bytes, 0, vendor);
  put16(bytes, 2, device);
  std::size_t at = 0x100;
  if (acs_control) {
    const std::uint32_t next = ats ? 0x110u : 0u;
    put32(bytes, at, 0x000Du | (1u << 16) | (next << 20));
    put16(bytes, at + 4, 0x007f);
    put16(bytes, at + 6, *acs_control);
    at = 0x110;
  }
  if (ats) {
    put32(bytes, at, 0x000Fu | (1u << 16));
    put16(bytes, at + 6, *ats ? 0x8000 : 0);
  }
  return bytes;
}

PlantedSysfs::PlantedSysfs() {
  const ChildResult tar = run_child({"tar", {"-xzf", fixture("h200x2/sysfs-snapshot.tgz"), "-C", dir_.path()}});
  ok_ = tar.exit_code == 0;
  error_ = tar.err;
}

void PlantedSysfs::write(const std::string& path, const std::string& content) const {
  const fs::path file = host_path(path);
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::binary | std::ios::trunc) << content;
}

void PlantedSysfs::append_line(const std::string& path, const std::string& line) const {
  const fs::path file = host_path(path);
  fs::create_directories(file.parent_path());
  std::ofstream(file, std::ios::app) << line << "\n";
}

void PlantedSysfs::remove(const std::string& path) const { fs::remove_all(host_path(path)); }

void PlantedSysfs::link(const std::string& link, const std::string& target) const {
  const fs::path at = host_path(link);
  fs::create_directories(at.parent_path());
  fs::remove(at);
  fs::create_symlink(fs::path(target).lexically_relative(fs::path(link).parent_path()), at);
}

std::string PlantedSysfs::pci_directory(const std::string& bdf) const {
  const fs::path bus_link = host_path("/sys/bus/pci/devices/" + bdf);
  if (!fs::is_symlink(bus_link)) throw std::runtime_error("no PCI function " + bdf + " in the planted tree");
  return "/" + fs::canonical(bus_link).lexically_relative(fs::canonical(root())).string();
}

void PlantedSysfs::add_pci_function(const std::string& parent_bdf, const std::string& bdf,
                                    const PlantedPci& ids) const {
  const std::string dir =
      (parent_bdf.empty() ? std::string("/sys/devices/pci0000:00") : pci_directory(parent_bdf)) + "/" + bdf;
  write(dir + "/class", ids.class_id + "\n");
  write(dir + "/vendor", ids.vendor + "\n");
  write(dir + "/device", ids.device + "\n");
  write(dir + "/numa_node", std::to_string(ids.numa_node) + "\n");
  write(dir + "/current_link_speed", "32.0 GT/s PCIe\n");
  write(dir + "/max_link_speed", "32.0 GT/s PCIe\n");
  write(dir + "/current_link_width", "16\n");
  write(dir + "/max_link_width", "16\n");
  write(dir + "/config", pcie_config_space(hex16(ids.vendor), hex16(ids.device), std::nullopt, std::nullopt));
  link("/sys/bus/pci/devices/" + bdf, dir);
}

void PlantedSysfs::move_pci_function(const std::string& bdf, const std::string& parent_bdf,
                                     const std::string& new_bdf) const {
  const std::string from = pci_directory(bdf);
  const std::string to = pci_directory(parent_bdf) + "/" + new_bdf;
  fs::rename(host_path(from), host_path(to));
  fs::remove(host_path("/sys/bus/pci/devices/" + bdf));
  link("/sys/bus/pci/devices/" + new_bdf, to);
}

void PlantedSysfs::set_config(const std::string& bdf, const std::string& bytes) const {
  write(pci_directory(bdf) + "/config", bytes);
}

void PlantedSysfs::set_numa_node(const std::string& bdf, int node) const {
  write(pci_directory(bdf) + "/numa_node", std::to_string(node) + "\n");
}

void PlantedSysfs::add_rdma_device(const std::string& name, const std::string& bdf, const std::string& node_guid,
                                   const std::string& port_state, const std::string& link_layer) const {
  const std::string dir = pci_directory(bdf) + "/infiniband/" + name;
  write(dir + "/node_guid", node_guid + "\n");
  write(dir + "/ports/1/state", port_state + "\n");
  write(dir + "/ports/1/rate", "400 Gb/sec (4X NDR)\n");
  write(dir + "/ports/1/link_layer", link_layer + "\n");
  link("/sys/class/infiniband/" + name, dir);
}

void PlantedSysfs::plant_pcie_switch_with_gpus_and_nic() const {
  add_pci_function("", "0000:00:08.0", {"0x060400", "0x8086", "0x352a", -1});
  add_pci_function("0000:00:08.0", "0000:01:00.0", {"0x060400", "0x10b5", "0xc010", -1});
  for (const char* port : {"0000:02:00.0", "0000:02:01.0", "0000:02:02.0"}) {
    add_pci_function("0000:01:00.0", port, {"0x060400", "0x10b5", "0xc010", -1});
    set_config(port, pcie_config_space(0x10b5, 0xc010, 0, std::nullopt));
  }
  move_pci_function("0000:00:06.0", "0000:02:00.0", "0000:03:00.0");
  move_pci_function("0000:00:07.0", "0000:02:01.0", "0000:04:00.0");
  for (const char* gpu : {"0000:03:00.0", "0000:04:00.0"})
    set_config(gpu, pcie_config_space(0x10de, 0x2335, std::nullopt, false));
  add_pci_function("0000:02:02.0", "0000:05:00.0", {"0x020700", "0x15b3", "0x1021", -1});
  set_config("0000:05:00.0", pcie_config_space(0x15b3, 0x1021, std::nullopt, false));
  add_rdma_device("mlx5_0", "0000:05:00.0", "0c42:a103:0012:3456");
}

void PlantedSysfs::add_iommu_unit(const std::string& name) const {
  write("/sys/devices/virtual/iommu/" + name + "/uevent", "");
  link("/sys/class/iommu/" + name, "/sys/devices/virtual/iommu/" + name);
}

void PlantedSysfs::set_iommu_group(const std::string& bdf, int group, const std::string& type) const {
  const std::string dir = "/sys/kernel/iommu_groups/" + std::to_string(group);
  write(dir + "/type", type + "\n");
  link(pci_directory(bdf) + "/iommu_group", dir);
}

void PlantedSysfs::remove_hypervisor_flag() const {
  std::ifstream in(host_path("/proc/cpuinfo"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (auto at = text.find(" hypervisor"); at != std::string::npos; at = text.find(" hypervisor")) text.erase(at, 11);
  write("/proc/cpuinfo", text);
}

}  // namespace linkscope::test
