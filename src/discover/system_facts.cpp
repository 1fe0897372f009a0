#include "discover/system_facts.hpp"

#include <algorithm>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "discover/cpu_list.hpp"

namespace linkscope::discover {

namespace {

// How many of `gpu`'s active links end at `target_bdf`, and how many end in the NVSwitch fabric.
struct LinkCounts {
  unsigned direct = 0;
  unsigned to_switch = 0;
};

LinkCounts count_links(const NvmlGpuRecord& gpu, const std::string& target_bdf, const std::set<std::string>& gpu_bdfs) {
  LinkCounts counts;
  for (const auto& link : gpu.nvlinks) {
    if (!link.active.value_or(false) || !link.remote_bus_id.has()) continue;
    const std::string remote = canonical_bdf(*link.remote_bus_id).value_or(*link.remote_bus_id);
    if (remote == target_bdf) {
      ++counts.direct;
    } else if (link.remote_type.value_or("") == "nvswitch" ||
               (link.remote_type.value_or("unknown") == "unknown" && gpu_bdfs.count(remote) == 0)) {
      // In a VM the switch is invisible (bus id fffffff:ff:ff.0) but still a switch.
      ++counts.to_switch;
    }
  }
  return counts;
}

void fill_relation(PairFacts& pair, const GpuFacts& a, const GpuFacts& b, const std::set<std::string>& gpu_bdfs) {
  const LinkCounts from_a = count_links(*a.nvml, b.pci_bdf, gpu_bdfs);
  if (from_a.direct > 0) {
    pair.nvlink_count = from_a.direct;
    pair.relation = Fact<std::string>::known(fmt::format("NV{}", from_a.direct));
    return;
  }
  const LinkCounts from_b = count_links(*b.nvml, a.pci_bdf, gpu_bdfs);
  if (from_a.to_switch > 0 && from_b.to_switch > 0) {
    // On NVSwitch systems nvidia-smi prints each GPU's total link count into the fabric (NV18 on H100/H200).
    pair.nvlink_count = from_a.to_switch;
    pair.via_nvswitch = true;
    pair.relation = Fact<std::string>::known(fmt::format("NV{}", from_a.to_switch));
    return;
  }
  if (pair.nvml && pair.nvml->topology_level.has()) {
    pair.relation = Fact<std::string>::known(topology_level_name(*pair.nvml->topology_level));
  } else {
    pair.relation = Fact<std::string>::unknown(pair.nvml ? pair.nvml->topology_level.reason : "NVML has no pair record");
  }
}

Fact<std::vector<int>> cpus_from_sysfs(const PciDevice* pci) {
  if (pci == nullptr) return Fact<std::vector<int>>::unknown("the GPU is not in sysfs");
  if (!pci->local_cpulist) return Fact<std::vector<int>>::unknown("sysfs has no local_cpulist for the GPU");
  try {
    return Fact<std::vector<int>>::known(parse_cpu_list(*pci->local_cpulist));
  } catch (const std::invalid_argument& e) {
    return Fact<std::vector<int>>::unknown(e.what());
  }
}

Fact<int> numa_from_sysfs(const PciDevice* pci) {
  if (pci == nullptr) return Fact<int>::unknown("the GPU is not in sysfs");
  const auto node = pci->numa_node_id();
  if (!node) return Fact<int>::unknown("sysfs has no numa_node for the GPU");
  if (*node < 0) return Fact<int>::unknown("the kernel reports no NUMA node for the GPU (numa_node = -1)");
  return Fact<int>::known(*node);
}

}  // namespace

std::string topology_level_name(int level) {
  switch (level) {
    case 0: return "PIX";  // NVML_TOPOLOGY_INTERNAL: two GPUs on one board, behind one bridge
    case 10: return "PIX";
    case 20: return "PXB";
    case 30: return "PHB";
    case 40: return "NODE";
    case 50: return "SYS";
    default: return fmt::format("level-{}", level);
  }
}

std::vector<const PciDevice*> sysfs_display_devices(const HostFacts& host) {
  std::vector<const PciDevice*> devices;
  for (const auto& device : host.pci.devices()) {
    if (device.is_display()) devices.push_back(&device);
  }
  return devices;
}

const GpuFacts* SystemFacts::gpu_by_cuda_ordinal(int ordinal) const {
  for (const auto& gpu : gpus) {
    if (gpu.cuda_ordinal == ordinal) return &gpu;
  }
  return nullptr;
}

const GpuFacts* SystemFacts::gpu_by_nvml_index(unsigned index) const {
  for (const auto& gpu : gpus) {
    if (gpu.nvml_index == index) return &gpu;
  }
  return nullptr;
}

int SystemFacts::nvml_gpu_count() const {
  return static_cast<int>(std::count_if(gpus.begin(), gpus.end(), [](const GpuFacts& g) { return g.nvml_index.has_value(); }));
}

SystemFacts assemble_system_facts(HostFacts host, NvmlSnapshot nvml, CudaSnapshot cuda, const Environment& env) {
  SystemFacts facts;
  facts.cuda_visible_devices = env.get("CUDA_VISIBLE_DEVICES");
  facts.cuda_device_order = env.get("CUDA_DEVICE_ORDER");
  facts.mapping = map_devices(nvml, cuda, env);
  facts.driver.available = nvml.available;
  facts.driver.reason = nvml.reason;
  facts.driver.library = nvml.library;
  facts.driver.version = nvml.driver_version;
  facts.driver.cuda_driver_version = nvml.cuda_driver_version.has() ? nvml.cuda_driver_version : cuda.driver_version;
  if (!nvml.available && facts.driver.version.reason.empty()) facts.driver.version.reason = nvml.reason;
  facts.cuda.available = cuda.available;
  facts.cuda.reason = cuda.reason;
  facts.cuda.runtime_version = cuda.runtime_version;
  facts.cuda.driver_version = cuda.driver_version;
  facts.cuda.device_count = static_cast<int>(cuda.devices.size());
  facts.errors = nvml.errors;
  facts.errors.insert(facts.errors.end(), cuda.errors.begin(), cuda.errors.end());

  const auto cuda_record = [&](int ordinal) -> std::optional<CudaDeviceRecord> {
    for (const auto& device : cuda.devices) {
      if (device.ordinal == ordinal) return device;
    }
    return std::nullopt;
  };
  if (!nvml.gpus.empty()) {
    for (std::size_t i = 0; i < nvml.gpus.size(); ++i) {
      GpuFacts gpu;
      const NvmlGpuRecord& record = nvml.gpus[i];
      gpu.nvml_index = record.index;
      gpu.uuid = record.uuid;
      gpu.pci_bdf = record.pci_bus_id;
      gpu.name = record.name;
      gpu.nvml = record;
      gpu.cuda_ordinal = facts.mapping.cuda_ordinal_of_gpu[i];
      if (gpu.cuda_ordinal) gpu.cuda = cuda_record(*gpu.cuda_ordinal);
      for (const auto& hidden : facts.mapping.hidden) {
        if (hidden.nvml_index == record.index) gpu.hidden_reason = hidden.reason;
      }
      facts.gpus.push_back(std::move(gpu));
    }
  } else {
    for (const auto& device : cuda.devices) {  // CUDA works but NVML does not (library missing)
      GpuFacts gpu;
      gpu.cuda_ordinal = device.ordinal;
      gpu.uuid = device.uuid;
      gpu.pci_bdf = device.pci_bus_id;
      gpu.name = device.name;
      gpu.cuda = device;
      facts.gpus.push_back(std::move(gpu));
    }
  }
  for (auto& gpu : facts.gpus) {
    const PciDevice* pci = host.pci.find(gpu.pci_bdf);
    if (pci != nullptr) gpu.pci = *pci;
    gpu.numa_node = numa_from_sysfs(pci);
    gpu.cpu_affinity = gpu.nvml && gpu.nvml->cpu_affinity.has() ? gpu.nvml->cpu_affinity : cpus_from_sysfs(pci);
    if (gpu.cpu_affinity.has()) gpu.numa_affinity = numa_nodes_of_cpus(host.numa_nodes, *gpu.cpu_affinity);
  }

  std::set<std::string> gpu_bdfs;
  for (const auto& gpu : facts.gpus) gpu_bdfs.insert(gpu.pci_bdf);
  for (const auto& a : facts.gpus) {
    for (const auto& b : facts.gpus) {
      if (&a == &b) continue;
      PairFacts pair;
      pair.a_cuda = a.cuda_ordinal;
      pair.b_cuda = b.cuda_ordinal;
      if (a.nvml_index && b.nvml_index) {
        pair.a_nvml = a.nvml_index;
        pair.b_nvml = b.nvml_index;
        for (const auto& record : nvml.pairs) {
          if (record.a == *a.nvml_index && record.b == *b.nvml_index) pair.nvml = record;
        }
        fill_relation(pair, a, b, gpu_bdfs);
      } else {
        pair.relation = Fact<std::string>::unknown(fmt::format("NVML is unavailable: {}", nvml.reason));
      }
      if (a.cuda_ordinal && b.cuda_ordinal) {
        for (const auto& peer : cuda.peers) {
          if (peer.a == *a.cuda_ordinal && peer.b == *b.cuda_ordinal) pair.cuda = peer;
        }
      }
      facts.pairs.push_back(std::move(pair));
    }
  }
  facts.host = std::move(host);
  return facts;
}

}  // namespace linkscope::discover
