#include "discover/facts_json.hpp"

#include <fmt/format.h>

#include "discover/cpu_list.hpp"

namespace linkscope::discover {

namespace {

using nlohmann::json;

template <typename T>
void put(json& object, const std::string& key, const Fact<T>& fact) {
  if (fact.has()) {
    object[key] = *fact;
  } else {
    object[key] = nullptr;
    object[key + "_reason"] = fact.reason.empty() ? "not read" : fact.reason;
  }
}

void put_cpus(json& object, const std::string& key, const Fact<std::vector<int>>& cpus) {
  put(object, key, cpus.has() ? Fact<std::string>::known(format_cpu_list(*cpus)) : Fact<std::string>::unknown(cpus.reason));
}

template <typename T>
json optional_json(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
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

json nvlink_json(const NvlinkRecord& link) {
  json out;
  out["link"] = link.link;
  put(out, "active", link.active);
  put(out, "version", link.version);
  put(out, "speed_gbps",  // GB/s per direction (NVML MBps / 1000), as `nvidia-smi nvlink -s`
      link.speed_mbyte_s.has() ? Fact<double>::known(*link.speed_mbyte_s / 1000.0) : Fact<double>::unknown(link.speed_mbyte_s.reason));
  if (link.remote_bus_id.has()) {
    out["remote_bdf"] = canonical_bdf(*link.remote_bus_id).value_or(*link.remote_bus_id);
  } else {
    out["remote_bdf"] = nullptr;
    out["remote_bdf_reason"] = link.remote_bus_id.reason;
  }
  put(out, "remote_type", link.remote_type);
  put(out, "p2p_supported", link.p2p_supported);
  json errors;
  put(errors, "replay", link.replay_errors);
  put(errors, "recovery", link.recovery_errors);
  put(errors, "crc_flit", link.crc_errors);
  out["errors"] = errors;
  return out;
}

json pcie_json(const GpuFacts& gpu) {
  json pcie;
  const auto unknown = [](const char* why) { return Fact<unsigned>::unknown(why); };
  if (gpu.nvml) {
    put(pcie, "current_gen", gpu.nvml->pcie_current_gen);
    put(pcie, "max_gen", gpu.nvml->pcie_max_gen);
    put(pcie, "current_width", gpu.nvml->pcie_current_width);
    put(pcie, "max_width", gpu.nvml->pcie_max_width);
  } else {
    for (const char* key : {"current_gen", "max_gen", "current_width", "max_width"}) put(pcie, key, unknown("NVML unavailable"));
  }
  // sysfs: the trained link of the GPU's own PCI function (NVML reports the GPU's side the same way).
  pcie["current_speed"] = gpu.pci ? optional_json(gpu.pci->current_link_speed) : json(nullptr);
  pcie["max_speed"] = gpu.pci ? optional_json(gpu.pci->max_link_speed) : json(nullptr);
  pcie["sysfs_current_width"] = gpu.pci ? optional_json(gpu.pci->current_width()) : json(nullptr);
  pcie["sysfs_max_width"] = gpu.pci ? optional_json(gpu.pci->max_width()) : json(nullptr);
  std::optional<bool> degraded;
  if (gpu.pci && gpu.pci->current_width() && gpu.pci->max_width()) {
    degraded = *gpu.pci->current_width() < *gpu.pci->max_width();
  } else if (gpu.nvml && gpu.nvml->pcie_current_width.has() && gpu.nvml->pcie_max_width.has()) {
    degraded = *gpu.nvml->pcie_current_width < *gpu.nvml->pcie_max_width;
  }
  // Width only: the generation drops at idle to save power, which is normal.
  pcie["width_degraded"] = optional_json(degraded);
  return pcie;
}

json gpu_json(const GpuFacts& gpu) {
  json out;
  out["cuda_ordinal"] = optional_json(gpu.cuda_ordinal);
  out["nvml_index"] = optional_json(gpu.nvml_index);
  out["uuid"] = gpu.uuid;
  out["pci_bdf"] = gpu.pci_bdf;
  out["name"] = gpu.name;
  if (gpu.nvml) {
    put(out, "sm", gpu.nvml->sm);
  } else {
    out["sm"] = gpu.cuda ? json(gpu.cuda->sm) : json(nullptr);
  }
  if (gpu.nvml) {
    put(out, "memory_bytes", gpu.nvml->memory_bytes);
  } else {
    out["memory_bytes"] = gpu.cuda ? json(gpu.cuda->memory_bytes) : json(nullptr);
  }
  put(out, "numa_node", gpu.numa_node);
  put_cpus(out, "cpu_affinity", gpu.cpu_affinity);
  out["numa_affinity"] = gpu.numa_affinity;
  out["pcie"] = pcie_json(gpu);
  if (gpu.cuda) {
    put(out, "gpu_direct_rdma", gpu.cuda->gpu_direct_rdma);
  } else {
    out["gpu_direct_rdma"] = nullptr;
    out["gpu_direct_rdma_reason"] = "not visible to CUDA";
  }
  if (!gpu.nvml) {
    out["nvml_reason"] = "NVML unavailable: only CUDA and sysfs facts";
    return out;
  }
  const NvmlGpuRecord& nvml = *gpu.nvml;
  put(out, "mig_mode", nvml.mig_enabled.has() ? Fact<std::string>::known(*nvml.mig_enabled ? "enabled" : "disabled")
                                              : Fact<std::string>::unknown(nvml.mig_enabled.reason));
  put(out, "persistence_mode", nvml.persistence_mode);
  put(out, "compute_mode", nvml.compute_mode.has() ? Fact<std::string>::known(compute_mode_name(*nvml.compute_mode))
                                                   : Fact<std::string>::unknown(nvml.compute_mode.reason));
  json clocks;
  put(clocks, "sm_mhz", nvml.sm_clock_mhz);
  put(clocks, "sm_max_mhz", nvml.sm_max_clock_mhz);
  put(clocks, "mem_mhz", nvml.mem_clock_mhz);
  put(clocks, "mem_max_mhz", nvml.mem_max_clock_mhz);
  out["clocks"] = clocks;
  put(out, "throttle_reasons", nvml.clock_event_reasons.has()
                                   ? Fact<std::vector<std::string>>::known(clock_event_reason_names(*nvml.clock_event_reasons))
                                   : Fact<std::vector<std::string>>::unknown(nvml.clock_event_reasons.reason));
  json utilization;
  put(utilization, "gpu_percent", nvml.utilization_gpu_percent);
  put(utilization, "memory_percent", nvml.utilization_memory_percent);
  out["utilization"] = utilization;
  json ecc;
  put(ecc, "enabled", nvml.ecc_enabled);
  put(ecc, "volatile_corrected", nvml.ecc_volatile_corrected);
  put(ecc, "volatile_uncorrected", nvml.ecc_volatile_uncorrected);
  put(ecc, "aggregate_corrected", nvml.ecc_aggregate_corrected);
  put(ecc, "aggregate_uncorrected", nvml.ecc_aggregate_uncorrected);
  out["ecc"] = ecc;
  put(out, "gpu_numa_id", nvml.gpu_numa_node);
  out["nvlinks"] = json::array();
  for (const auto& link : nvml.nvlinks) out["nvlinks"].push_back(nvlink_json(link));
  if (nvml.nvlinks.empty()) out["nvlinks_reason"] = nvml.nvlink_reason;
  if (nvml.c2c_active_links.has() && *nvml.c2c_active_links > 0) {
    json c2c;
    c2c["active_links"] = *nvml.c2c_active_links;
    put(c2c, "max_bw_gbps", nvml.c2c_max_bw_mbyte_s.has() ? Fact<double>::known(*nvml.c2c_max_bw_mbyte_s / 1000.0)
                                                          : Fact<double>::unknown(nvml.c2c_max_bw_mbyte_s.reason));
    out["c2c"] = c2c;
  }
  if (nvml.processes.has()) {
    out["processes"] = json::array();
    for (const auto& process : *nvml.processes) {
      json p;
      p["pid"] = process.pid;
      p["name"] = process.name;
      put(p, "used_memory_bytes", process.used_memory_bytes);
      out["processes"].push_back(p);
    }
  } else {
    out["processes"] = nullptr;
    out["processes_reason"] = nvml.processes.reason;
  }
  return out;
}

json pair_json(const PairFacts& pair) {
  json out;
  if (pair.a_cuda && pair.b_cuda) {  // CUDA ordinals only for pairs CUDA shows (visibility.hidden_pairs otherwise)
    out["a"] = *pair.a_cuda;
    out["b"] = *pair.b_cuda;
  }
  out["a_nvml_index"] = optional_json(pair.a_nvml);
  out["b_nvml_index"] = optional_json(pair.b_nvml);
  put(out, "relation", pair.relation);
  out["nvlink_count"] = pair.nvlink_count;
  out["via_nvswitch"] = pair.via_nvswitch;
  if (pair.nvml) {
    json p2p;
    put(p2p, "read", pair.nvml->p2p_read);
    put(p2p, "write", pair.nvml->p2p_write);
    put(p2p, "nvlink", pair.nvml->p2p_nvlink);
    put(p2p, "atomics", pair.nvml->p2p_atomics);
    out["nvml_p2p"] = p2p;
    put(out, "topology_level", pair.nvml->topology_level);
  } else {
    out["nvml_p2p"] = nullptr;
    out["nvml_p2p_reason"] = "NVML has no record for this pair";
  }
  if (pair.cuda) {
    put(out, "cuda_peer_access", pair.cuda->can_access_peer);
    put(out, "cuda_performance_rank", pair.cuda->performance_rank);
    put(out, "cuda_native_atomics", pair.cuda->native_atomics);
  } else {
    const char* why = pair.a_cuda && pair.b_cuda ? "the CUDA runtime has no record for this pair"
                                                 : "at least one GPU is not visible to CUDA";
    for (const char* key : {"cuda_peer_access", "cuda_performance_rank", "cuda_native_atomics"}) {
      out[key] = nullptr;
      out[std::string(key) + "_reason"] = why;
    }
  }
  return out;
}

json nic_json(const NicDevice& nic) {
  json out;
  out["name"] = nic.name;
  out["kind"] = nic.kind;
  out["bus"] = nic.bus;
  out["pci_bdf"] = optional_json(nic.pci_bdf);
  out["numa_node"] = nic.numa_node && *nic.numa_node >= 0 ? json(*nic.numa_node) : json(nullptr);
  out["device_path"] = optional_json(nic.device_path);
  if (nic.kind == "infiniband") {
    out["node_guid"] = optional_json(nic.node_guid);
    out["ports"] = json::array();
    for (const auto& port : nic.ports) {
      out["ports"].push_back({{"port", port.port},
                              {"state", port.state},
                              {"rate_gbps", optional_json(port.rate_gbit_s)},  // Gbit/s, as the contract has it
                              {"link_layer", port.link_layer}});
    }
    out["net_devices"] = nic.net_devices;
  } else {
    out["operstate"] = optional_json(nic.operstate);
    out["speed_mbps"] = optional_json(nic.speed_mbit_s);  // Mbit/s
    out["virtual"] = nic.is_virtual;
    out["has_address"] = optional_json(nic.has_address);
  }
  return out;
}

json version_json(const Fact<int>& version) { return version.has() ? json(*version) : json(nullptr); }

}  // namespace

nlohmann::json system_facts_to_json(const SystemFacts& facts) {
  json out;
  json driver;
  driver["available"] = facts.driver.available;
  driver["library"] = facts.driver.library;
  put(driver, "version", facts.driver.version);
  put(driver, "cuda_driver_version", facts.driver.cuda_driver_version);
  driver["reason"] = facts.driver.available ? json(nullptr) : json(facts.driver.reason);
  out["driver"] = driver;
  json cuda;
  cuda["available"] = facts.cuda.available;
  cuda["runtime_version"] = version_json(facts.cuda.runtime_version);
  cuda["driver_version"] = version_json(facts.cuda.driver_version);
  cuda["device_count"] = facts.cuda.device_count;
  cuda["reason"] = facts.cuda.available ? json(nullptr) : json(facts.cuda.reason);
  out["cuda"] = cuda;
  out["sysfs_root"] = facts.host.sysfs_root;
  if (facts.host.cpu) {
    out["cpu"] = {{"arch", facts.host.cpu->arch},
                  {"vendor", optional_json(facts.host.cpu->vendor)},
                  {"family_id", optional_json(facts.host.cpu->family_id)},
                  {"model_id", optional_json(facts.host.cpu->model_id)},
                  {"model_name", facts.host.cpu->model_name},
                  {"logical_cpus", facts.host.cpu->logical_cpus}};
  } else {
    out["cpu"] = nullptr;
    out["cpu_reason"] = "no /proc/cpuinfo";
  }
  // `gpus` and `pairs` hold what CUDA shows (ids are CUDA ordinals); GPUs and pairs CUDA does not show keep
  // their facts under `visibility`.
  out["gpus"] = json::array();
  for (const auto& gpu : facts.gpus) {
    if (gpu.cuda_ordinal) out["gpus"].push_back(gpu_json(gpu));
  }
  out["pairs"] = json::array();
  json hidden_pairs = json::array();
  for (const auto& pair : facts.pairs) {
    (pair.a_cuda && pair.b_cuda ? out["pairs"] : hidden_pairs).push_back(pair_json(pair));
  }
  out["numa_nodes"] = json::array();
  for (const auto& node : facts.host.numa_nodes) {
    out["numa_nodes"].push_back({{"id", node.id},
                                 {"cpus", format_cpu_list(node.cpus)},
                                 {"distances", node.distances},
                                 {"memory_bytes", optional_json(node.memory_total_bytes)}});
  }
  out["nics"] = json::array();
  for (const auto& nic : facts.host.nics) out["nics"].push_back(nic_json(nic));
  out["pci_display_devices"] = json::array();
  for (const PciDevice* device : sysfs_display_devices(facts.host)) {
    out["pci_display_devices"].push_back({{"pci_bdf", device->bdf},
                                          {"class", optional_json(device->class_id)},
                                          {"vendor", optional_json(device->vendor)},
                                          {"device", optional_json(device->device)},
                                          {"numa_node", optional_json(device->numa_node_id())},
                                          {"current_link_speed", optional_json(device->current_link_speed)},
                                          {"current_width", optional_json(device->current_width())},
                                          {"max_link_speed", optional_json(device->max_link_speed)},
                                          {"max_width", optional_json(device->max_width())}});
  }
  json visibility;
  visibility["nvml_gpu_count"] = facts.nvml_gpu_count();
  visibility["cuda_device_count"] = facts.cuda.device_count;
  visibility["cuda_visible_devices"] = optional_json(facts.cuda_visible_devices);
  visibility["cuda_device_order"] = optional_json(facts.cuda_device_order);
  visibility["hidden"] = json::array();
  for (const auto& hidden : facts.mapping.hidden) {
    json entry = {{"nvml_index", hidden.nvml_index}, {"uuid", hidden.uuid}, {"pci_bdf", hidden.pci_bdf}, {"reason", hidden.reason}};
    if (const GpuFacts* gpu = facts.gpu_by_nvml_index(hidden.nvml_index)) entry["gpu"] = gpu_json(*gpu);
    visibility["hidden"].push_back(entry);
  }
  visibility["hidden_pairs"] = hidden_pairs;
  visibility["notes"] = facts.mapping.notes;
  out["visibility"] = visibility;
  out["errors"] = facts.errors;
  out["warnings"] = facts.host.warnings;
  return out;
}

}  // namespace linkscope::discover
