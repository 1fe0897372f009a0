#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/environment.hpp"
#include "discover/cuda_source.hpp"
#include "discover/fact.hpp"
#include "discover/host_facts.hpp"
#include "discover/nvml_source.hpp"
#include "discover/visibility.hpp"

namespace linkscope::discover {

// One GPU with everything known about it, joined by PCI bus id: NVML's record, the CUDA runtime's record
// and the sysfs PCI function. Any of the three may be missing (no driver, hidden from CUDA, snapshot).
struct GpuFacts {
  std::optional<int> cuda_ordinal;
  std::optional<unsigned> nvml_index;
  std::string uuid;
  std::string pci_bdf;
  std::string name;
  std::optional<NvmlGpuRecord> nvml;
  std::optional<CudaDeviceRecord> cuda;
  std::optional<PciDevice> pci;
  Fact<int> numa_node;                  // sysfs numa_node of the GPU's PCI function
  Fact<std::vector<int>> cpu_affinity;  // NVML's ideal CPUs, else sysfs local_cpulist
  std::vector<int> numa_affinity;       // NUMA nodes holding those CPUs (nvidia-smi "NUMA Affinity")
  std::string hidden_reason;            // why CUDA does not show it (when cuda_ordinal is empty)
};

// One ordered GPU pair: NVML indices (when NVML works) and CUDA ordinals (when CUDA shows the GPUs).
struct PairFacts {
  std::optional<unsigned> a_nvml, b_nvml;
  std::optional<int> a_cuda, b_cuda;
  Fact<std::string> relation;  // as `nvidia-smi topo -m`: "NV18", "PIX", "PXB", "PHB", "NODE", "SYS"
  unsigned nvlink_count = 0;   // direct links a->b, or a's links into the NVSwitch fabric
  bool via_nvswitch = false;
  std::optional<NvmlPairRecord> nvml;
  std::optional<CudaPeerRecord> cuda;
};

struct DriverFacts {
  bool available = false;
  std::string reason;
  std::string library;
  Fact<std::string> version;
  Fact<int> cuda_driver_version;
};

struct CudaFacts {
  bool available = false;
  std::string reason;
  Fact<int> runtime_version;
  Fact<int> driver_version;
  int device_count = 0;
};

struct SystemFacts {
  HostFacts host;
  DriverFacts driver;
  CudaFacts cuda;
  std::vector<GpuFacts> gpus;  // NVML index order (or CUDA order without NVML)
  std::vector<PairFacts> pairs;
  DeviceMapping mapping;
  std::optional<std::string> cuda_visible_devices;
  std::optional<std::string> cuda_device_order;
  std::vector<std::string> errors;  // per-item failures (a GPU NVML or CUDA could not open)

  const GpuFacts* gpu_by_cuda_ordinal(int ordinal) const;
  const GpuFacts* gpu_by_nvml_index(unsigned index) const;
  int nvml_gpu_count() const;
};

// Joins the three sources. Pure: tests feed recorded snapshots.
SystemFacts assemble_system_facts(HostFacts host, NvmlSnapshot nvml, CudaSnapshot cuda, const Environment& env);

// `nvidia-smi topo -m`'s word for an NVML topology level (0 internal -> "PIX", ..., 50 -> "SYS").
std::string topology_level_name(int level);

// Display GPUs (PCI class 0x03) that sysfs shows, for machines without a driver.
std::vector<const PciDevice*> sysfs_display_devices(const HostFacts& host);

}  // namespace linkscope::discover
