#include "discover/system_model.hpp"

#include <map>

#include <fmt/format.h>

#include "discover/cpu_list.hpp"
#include "discover/nvidia_smi_matrix.hpp"

namespace linkscope::discover {

namespace {

// A discovery fact as the model's: the same value or the same reason ("not read" when discovery gave none).
template <typename To, typename From>
model::Known<To> known(const Fact<From>& fact) {
  if (fact.has()) return model::Known<To>(static_cast<To>(*fact));
  return model::Known<To>::unknown(fact.reason.empty() ? "not read" : fact.reason);
}

template <typename T>
model::Known<T> unknown(const char* why) {
  return model::Known<T>::unknown(why);
}

std::string compute_mode_name(int mode) {
  switch (mode) {
    case 0: return "default";
    case 1: return "exclusive_thread";
    case 2: return "prohibited";
    case 3: return "exclusive_process";
    default: return fmt::format("mode-{}", mode);
  }
}

model::Nvlink nvlink_model(const NvlinkRecord& link) {
  model::Nvlink out;
  out.link = static_cast<int>(link.link);
  out.active = known<bool>(link.active);
  out.version = known<int>(link.version);
  // GB/s per direction (NVML MBps / 1000), as `nvidia-smi nvlink -s`.
  out.speed_gbps = link.speed_mbyte_s.has() ? model::Known<double>(*link.speed_mbyte_s / 1000.0)
                                            : unknown<double>(link.speed_mbyte_s.reason.c_str());
  if (link.remote_bus_id.has()) {
    out.remote_bdf = canonical_bdf(*link.remote_bus_id).value_or(*link.remote_bus_id);
  } else {
    out.remote_bdf = model::Known<std::string>(std::nullopt, link.remote_bus_id.reason);
  }
  out.remote_type = known<std::string>(link.remote_type);
  out.p2p_supported = known<bool>(link.p2p_supported);
  out.errors.replay = known<std::int64_t>(link.replay_errors);
  out.errors.recovery = known<std::int64_t>(link.recovery_errors);
  out.errors.crc_flit = known<std::int64_t>(link.crc_errors);
  return out;
}

model::Pcie pcie_model(const GpuFacts& gpu) {
  model::Pcie pcie;
  if (gpu.nvml) {
    pcie.current_gen = known<int>(gpu.nvml->pcie_current_gen);
    pcie.max_gen = known<int>(gpu.nvml->pcie_max_gen);
    pcie.current_width = known<int>(gpu.nvml->pcie_current_width);
    pcie.max_width = known<int>(gpu.nvml->pcie_max_width);
  } else {
    pcie.current_gen = pcie.max_gen = pcie.current_width = pcie.max_width = unknown<int>("NVML unavailable");
  }
  // sysfs: the trained link of the GPU's own PCI function (NVML reports the GPU's side the same way).
  if (gpu.pci) {
    pcie.current_speed = gpu.pci->current_link_speed;
    pcie.max_speed = gpu.pci->max_link_speed;
    pcie.sysfs_current_width = gpu.pci->current_width();
    pcie.sysfs_max_width = gpu.pci->max_width();
  }
  // Width only: the generation drops at idle to save power, which is normal.
  if (gpu.pci && gpu.pci->current_width() && gpu.pci->max_width()) {
    pcie.width_degraded = *gpu.pci->current_width() < *gpu.pci->max_width();
  } else if (gpu.nvml && gpu.nvml->pcie_current_width.has() && gpu.nvml->pcie_max_width.has()) {
    pcie.width_degraded = *gpu.nvml->pcie_current_width < *gpu.nvml->pcie_max_width;
  }
  return pcie;
}

model::Known<model::GpuFabric> fabric_model(const Fact<NvmlFabricRecord>& fabric) {
  if (!fabric.has()) return unknown<model::GpuFabric>(fabric.reason.c_str());
  static const char* const kStates[] = {"not_supported", "not_started", "in_progress", "completed"};
  model::GpuFabric out;
  out.state = fabric->state < 4 ? kStates[fabric->state] : fmt::format("state {}", fabric->state);
  out.status = fabric->status_text;
  out.status_ok = fabric->status == 0;
  out.clique_id = fabric->clique_id;
  out.cluster_uuid = fabric->cluster_uuid;
  out.health_mask = fabric->health_mask.has() ? model::Known<std::int64_t>(*fabric->health_mask)
                                              : unknown<std::int64_t>(fabric->health_mask.reason.c_str());
  return model::Known<model::GpuFabric>(std::move(out));
}

model::Gpu gpu_model(const GpuFacts& gpu) {
  model::Gpu out;
  out.cuda_ordinal = gpu.cuda_ordinal;
  if (gpu.nvml_index) out.nvml_index = static_cast<int>(*gpu.nvml_index);
  out.uuid = gpu.uuid;
  out.pci_bdf = gpu.pci_bdf;
  out.name = gpu.name;
  if (gpu.nvml) {
    out.sm = known<int>(gpu.nvml->sm);
    out.memory_bytes = known<std::int64_t>(gpu.nvml->memory_bytes);
  } else if (gpu.cuda) {
    out.sm = gpu.cuda->sm;
    out.memory_bytes = static_cast<std::int64_t>(gpu.cuda->memory_bytes);
  } else {
    out.sm = unknown<int>("neither NVML nor CUDA reports this GPU");
    out.memory_bytes = unknown<std::int64_t>("neither NVML nor CUDA reports this GPU");
  }
  out.numa_node = known<int>(gpu.numa_node);
  out.cpu_affinity = gpu.cpu_affinity.has() ? model::Known<std::string>(format_cpu_list(*gpu.cpu_affinity))
                                            : unknown<std::string>(gpu.cpu_affinity.reason.c_str());
  out.numa_affinity = gpu.numa_affinity;
  out.pcie = pcie_model(gpu);
  out.gpu_direct_rdma = gpu.cuda ? known<bool>(gpu.cuda->gpu_direct_rdma) : unknown<bool>("not visible to CUDA");
  out.dma_buf = gpu.cuda ? known<bool>(gpu.cuda->dma_buf) : unknown<bool>("not visible to CUDA");
  out.multicast = gpu.cuda ? known<bool>(gpu.cuda->multicast) : unknown<bool>("not visible to CUDA");
  if (!gpu.cuda) {
    out.l2_cache_bytes = unknown<std::int64_t>("not visible to CUDA");
  } else if (gpu.cuda->l2_cache_bytes > 0) {
    out.l2_cache_bytes = static_cast<std::int64_t>(gpu.cuda->l2_cache_bytes);
  } else {
    out.l2_cache_bytes = unknown<std::int64_t>("the CUDA runtime reports no L2 size");
  }
  if (!gpu.nvml) {
    out.nvml_reason = "NVML unavailable: only CUDA and sysfs facts";
    return out;
  }
  const NvmlGpuRecord& nvml = *gpu.nvml;
  out.mig_mode = nvml.mig_enabled.has() ? model::Known<std::string>(*nvml.mig_enabled ? "enabled" : "disabled")
                                        : unknown<std::string>(nvml.mig_enabled.reason.c_str());
  out.persistence_mode = known<bool>(nvml.persistence_mode);
  out.compute_mode = nvml.compute_mode.has() ? model::Known<std::string>(compute_mode_name(*nvml.compute_mode))
                                             : unknown<std::string>(nvml.compute_mode.reason.c_str());
  out.clocks = {known<int>(nvml.sm_clock_mhz), known<int>(nvml.sm_max_clock_mhz), known<int>(nvml.mem_clock_mhz),
                known<int>(nvml.mem_max_clock_mhz)};
  out.memory_bus_width_bits = known<int>(nvml.memory_bus_width_bits);
  if (out.memory_bus_width_bits.value_or(-1) == 0) {
    out.memory_bus_width_bits = unknown<int>("nvmlDeviceGetMemoryBusWidth reports 0 bits");
  }
  out.throttle_reasons = nvml.clock_event_reasons.has()
                             ? model::Known<std::vector<std::string>>(clock_event_reason_names(*nvml.clock_event_reasons))
                             : unknown<std::vector<std::string>>(nvml.clock_event_reasons.reason.c_str());
  out.utilization = {known<int>(nvml.utilization_gpu_percent), known<int>(nvml.utilization_memory_percent)};
  out.ecc = {known<bool>(nvml.ecc_enabled), known<std::int64_t>(nvml.ecc_volatile_corrected),
             known<std::int64_t>(nvml.ecc_volatile_uncorrected), known<std::int64_t>(nvml.ecc_aggregate_corrected),
             known<std::int64_t>(nvml.ecc_aggregate_uncorrected)};
  out.gpu_numa_id = known<int>(nvml.gpu_numa_node);
  std::vector<model::Nvlink> links;
  for (const auto& link : nvml.nvlinks) links.push_back(nvlink_model(link));
  out.nvlinks = model::Known<std::vector<model::Nvlink>>(std::move(links));
  out.nvlinks.reason = nvml.nvlink_reason;
  if (nvml.c2c_active_links.has() && *nvml.c2c_active_links > 0) {
    model::C2c c2c;
    c2c.active_links = static_cast<int>(*nvml.c2c_active_links);
    c2c.max_bw_gbps = nvml.c2c_max_bw_mbyte_s.has() ? model::Known<double>(*nvml.c2c_max_bw_mbyte_s / 1000.0)
                                                    : unknown<double>(nvml.c2c_max_bw_mbyte_s.reason.c_str());
    out.c2c = c2c;
  }
  out.fabric = fabric_model(nvml.fabric);
  if (nvml.processes.has()) {
    std::vector<model::GpuProcess> processes;
    for (const auto& process : *nvml.processes) {
      processes.push_back({static_cast<std::int64_t>(process.pid), process.name,
                           known<std::int64_t>(process.used_memory_bytes)});
    }
    out.processes = model::Known<std::vector<model::GpuProcess>>(std::move(processes));
  } else {
    out.processes = unknown<std::vector<model::GpuProcess>>(nvml.processes.reason.c_str());
  }
  return out;
}

model::GpuPair pair_model(const PairFacts& pair) {
  model::GpuPair out;
  if (pair.a_cuda && pair.b_cuda) {  // CUDA ordinals only for pairs CUDA shows (visibility.hidden_pairs otherwise)
    out.a = *pair.a_cuda;
    out.b = *pair.b_cuda;
  }
  if (pair.a_nvml) out.a_nvml_index = static_cast<int>(*pair.a_nvml);
  if (pair.b_nvml) out.b_nvml_index = static_cast<int>(*pair.b_nvml);
  out.relation = known<std::string>(pair.relation);
  out.nvlink_count = static_cast<int>(pair.nvlink_count);
  out.via_nvswitch = pair.via_nvswitch;
  if (pair.nvml) {
    out.nvml_p2p = model::NvmlP2p{known<std::string>(pair.nvml->p2p_read), known<std::string>(pair.nvml->p2p_write),
                                  known<std::string>(pair.nvml->p2p_nvlink), known<std::string>(pair.nvml->p2p_atomics)};
    out.topology_level = known<int>(pair.nvml->topology_level);
  } else {
    out.nvml_p2p_reason = "NVML has no record for this pair";
  }
  if (pair.cuda) {
    out.cuda_peer_access = known<bool>(pair.cuda->can_access_peer);
    out.cuda_performance_rank = known<int>(pair.cuda->performance_rank);
    out.cuda_native_atomics = known<bool>(pair.cuda->native_atomics);
  } else {
    const char* why = pair.a_cuda && pair.b_cuda ? "the CUDA runtime has no record for this pair"
                                                 : "at least one GPU is not visible to CUDA";
    out.cuda_peer_access = unknown<bool>(why);
    out.cuda_performance_rank = unknown<int>(why);
    out.cuda_native_atomics = unknown<bool>(why);
  }
  return out;
}

model::Nic nic_model(const NicDevice& nic) {
  model::Nic out;
  out.name = nic.name;
  out.kind = nic.kind;
  out.bus = nic.bus;
  out.pci_bdf = nic.pci_bdf;
  if (nic.numa_node && *nic.numa_node >= 0) out.numa_node = *nic.numa_node;
  out.device_path = nic.device_path;
  out.node_guid = nic.node_guid;
  for (const auto& port : nic.ports) out.ports.push_back({port.port, port.state, port.rate_gbit_s, port.link_layer});
  out.net_devices = nic.net_devices;
  out.operstate = nic.operstate;
  if (nic.speed_mbit_s) out.speed_mbps = *nic.speed_mbit_s;
  out.is_virtual = nic.is_virtual;
  out.has_address = nic.has_address;
  return out;
}

// NVLink remotes NVML names that the PCI tree does not hold (an NVSwitch or peer a VM does not show), one line per
// GPU and remote: "0000:00:06.0: 18 active link(s) to ffffffff:ff:ff.0".
std::vector<std::string> hidden_nvlink_remotes(const SystemFacts& facts) {
  std::vector<std::string> hidden;
  for (const auto& gpu : facts.gpus) {
    if (!gpu.nvml) continue;
    std::map<std::string, int> links_to;
    for (const auto& link : gpu.nvml->nvlinks) {
      if (!link.remote_bus_id.has() || !link.active.has() || !*link.active) continue;
      const std::string remote = canonical_bdf(*link.remote_bus_id).value_or(*link.remote_bus_id);
      if (facts.host.pci.find(remote) == nullptr) ++links_to[remote];
    }
    for (const auto& [remote, count] : links_to) {
      hidden.push_back(fmt::format("{}: {} active link(s) to {}", gpu.pci_bdf, count, remote));
    }
  }
  return hidden;
}

}  // namespace

model::System system_model(const SystemFacts& facts) {
  model::System out;
  out.present = true;
  out.driver.reported = true;
  out.driver.available = facts.driver.available;
  out.driver.library = facts.driver.library;
  out.driver.version = known<std::string>(facts.driver.version);
  out.driver.cuda_driver_version = known<int>(facts.driver.cuda_driver_version);
  out.driver.reason = facts.driver.reason;
  out.cuda.available = facts.cuda.available;
  out.cuda.runtime_version = facts.cuda.runtime_version.value;
  out.cuda.driver_version = facts.cuda.driver_version.value;
  out.cuda.device_count = facts.cuda.device_count;
  out.cuda.reason = facts.cuda.reason;
  out.sysfs_root = facts.host.sysfs_root;
  out.nvidia_services = facts.host.nvidia_services;
  if (facts.host.cpu) {
    const CpuInfo& cpu = *facts.host.cpu;
    out.cpu = model::Cpu{cpu.arch, cpu.vendor, cpu.family_id, cpu.model_id, cpu.model_name, cpu.logical_cpus};
  } else {
    out.cpu_reason = "no /proc/cpuinfo";
  }
  // `gpus` and `pairs` hold what CUDA shows (ids are CUDA ordinals); GPUs and pairs CUDA does not show keep their
  // facts under `visibility`.
  for (const auto& gpu : facts.gpus) {
    if (gpu.cuda_ordinal) out.gpus.push_back(gpu_model(gpu));
  }
  for (const auto& pair : facts.pairs) {
    (pair.a_cuda && pair.b_cuda ? out.pairs : out.visibility.hidden_pairs).push_back(pair_model(pair));
  }
  for (const auto& node : facts.host.numa_nodes) {
    model::NumaNode numa;
    numa.id = node.id;
    numa.cpus = format_cpu_list(node.cpus);
    numa.distances = node.distances;
    if (node.memory_total_bytes) numa.memory_bytes = static_cast<std::int64_t>(*node.memory_total_bytes);
    out.numa_nodes.push_back(numa);
  }
  for (const auto& nic : facts.host.nics) out.nics.push_back(nic_model(nic));
  out.host_evidence = facts.host.evidence;
  out.host_evidence->virtualization.hidden_nvlink_remotes = hidden_nvlink_remotes(facts);
  for (const PciDevice* device : sysfs_display_devices(facts.host)) {
    out.pci_display_devices.push_back({device->bdf, device->class_id, device->vendor, device->device,
                                       device->numa_node_id(), device->current_link_speed, device->max_link_speed,
                                       device->current_width(), device->max_width(), device->local_cpulist});
  }
  out.smi_matrix = nvidia_smi_matrix(facts);
  model::Visibility& visibility = out.visibility;
  visibility.nvml_gpu_count = facts.nvml_gpu_count();
  visibility.cuda_device_count = facts.cuda.device_count;
  visibility.cuda_visible_devices = facts.cuda_visible_devices;
  visibility.cuda_device_order = facts.cuda_device_order;
  for (const auto& hidden : facts.mapping.hidden) {
    model::HiddenGpu entry;
    entry.nvml_index = static_cast<int>(hidden.nvml_index);
    entry.uuid = hidden.uuid;
    entry.pci_bdf = hidden.pci_bdf;
    entry.reason = hidden.reason;
    if (const GpuFacts* gpu = facts.gpu_by_nvml_index(hidden.nvml_index)) entry.gpu = gpu_model(*gpu);
    visibility.hidden.push_back(std::move(entry));
  }
  visibility.notes = facts.mapping.notes;
  out.errors = facts.errors;
  out.warnings = facts.host.warnings;
  return out;
}

}  // namespace linkscope::discover
