#include "discover/nvidia_smi_matrix.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "discover/cpu_list.hpp"
#include "discover/numa_reader.hpp"

namespace linkscope::discover {

namespace {

// One row or column of the matrix.
struct MatrixDevice {
  std::string label;
  const GpuFacts* gpu = nullptr;   // NVML GPU
  const PciDevice* pci = nullptr;  // its PCI function (GPU or NIC)
  bool is_nic = false;
  std::string cpu_affinity = "N/A";
  std::string numa_affinity = "N/A";
  std::string gpu_numa_id = "N/A";
};

const PairFacts* find_pair(const SystemFacts& facts, unsigned a, unsigned b) {
  for (const auto& pair : facts.pairs) {
    if (pair.a_nvml == a && pair.b_nvml == b) return &pair;
  }
  return nullptr;
}

std::string numa_list(const std::vector<int>& nodes) { return nodes.empty() ? "N/A" : format_cpu_list(nodes); }

std::vector<MatrixDevice> matrix_devices(const SystemFacts& facts) {
  std::vector<MatrixDevice> devices;
  if (facts.nvml_gpu_count() > 0) {
    for (const auto& gpu : facts.gpus) {
      if (!gpu.nvml_index) continue;
      MatrixDevice device;
      device.label = fmt::format("GPU{}", *gpu.nvml_index);
      device.gpu = &gpu;
      device.pci = gpu.pci ? &*gpu.pci : nullptr;
      if (gpu.cpu_affinity.has()) device.cpu_affinity = format_cpu_list(*gpu.cpu_affinity);
      device.numa_affinity = numa_list(gpu.numa_affinity);
      if (gpu.nvml && gpu.nvml->gpu_numa_node.has()) device.gpu_numa_id = std::to_string(*gpu.nvml->gpu_numa_node);
      devices.push_back(device);
    }
  } else {
    int index = 0;
    for (const PciDevice* pci : sysfs_display_devices(facts.host)) {
      MatrixDevice device;
      device.label = fmt::format("GPU{}", index++);
      device.pci = pci;
      if (pci->local_cpulist) {
        device.cpu_affinity = *pci->local_cpulist;
        try {
          device.numa_affinity = numa_list(numa_nodes_of_cpus(facts.host.numa_nodes, parse_cpu_list(*pci->local_cpulist)));
        } catch (const std::invalid_argument&) {
          device.numa_affinity = "N/A";
        }
      }
      devices.push_back(device);
    }
  }
  int nic_index = 0;
  for (const auto& nic : facts.host.nics) {
    if (nic.kind != "infiniband" || !nic.pci_bdf) continue;
    MatrixDevice device;
    device.label = fmt::format("NIC{}", nic_index++);
    device.pci = facts.host.pci.find(*nic.pci_bdf);
    device.is_nic = true;
    devices.push_back(device);
  }
  return devices;
}

std::string cell(const SystemFacts& facts, const MatrixDevice& row, const MatrixDevice& column) {
  if (&row == &column) return "X";
  if (row.gpu != nullptr && column.gpu != nullptr) {
    const PairFacts* pair = find_pair(facts, *row.gpu->nvml_index, *column.gpu->nvml_index);
    if (pair != nullptr && pair->relation.has()) return *pair->relation;
  }
  if (row.pci != nullptr && column.pci != nullptr) return facts.host.pci.relation(*row.pci, *column.pci);
  return "?";
}

}  // namespace

std::optional<model::SmiMatrix> nvidia_smi_matrix(const SystemFacts& facts) {
  const std::vector<MatrixDevice> devices = matrix_devices(facts);
  if (devices.empty()) return std::nullopt;
  model::SmiMatrix matrix;
  for (const auto& row : devices) {
    matrix.labels.push_back(row.label);
    std::vector<std::string> cells;
    for (const auto& column : devices) cells.push_back(cell(facts, row, column));
    matrix.cells.push_back(std::move(cells));
    if (row.is_nic) {
      for (const auto& nic : facts.host.nics) {
        if (nic.kind == "infiniband" && nic.pci_bdf && row.pci != nullptr && *nic.pci_bdf == row.pci->bdf) {
          matrix.nic_legend.push_back(fmt::format("{}: {}", row.label, nic.name));
        }
      }
    } else {
      matrix.cpu_affinity.push_back(row.cpu_affinity);
      matrix.numa_affinity.push_back(row.numa_affinity);
      matrix.gpu_numa_id.push_back(row.gpu_numa_id);
    }
  }
  return matrix;
}

}  // namespace linkscope::discover
