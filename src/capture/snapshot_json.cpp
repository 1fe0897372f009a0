#include "capture/snapshot_json.hpp"

#include <limits>

namespace linkscope::capture {

namespace {

using discover::Fact;
using model::JsonReader;
using nlohmann::json;

template <typename T>
json fact_json(const Fact<T>& fact) {
  json out;
  out["value"] = fact.has() ? json(*fact) : json(nullptr);
  if (!fact.has()) out["reason"] = fact.reason;
  return out;
}

// A fact read with one of JsonReader's typed getters; a value of the wrong type fails naming the field.
template <typename T, typename Raw>
Fact<T> fact_from(const JsonReader& parent, std::string_view key,
                  std::optional<Raw> (JsonReader::*get)(std::string_view) const) {
  const JsonReader object = parent.object(key);
  const std::optional<Raw> raw = (object.*get)("value");
  if (!raw) return Fact<T>::unknown(object.string_or("reason", "not recorded"));
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
    if (*raw > static_cast<Raw>(std::numeric_limits<T>::max())) object.fail("value", "out of range");
  }
  return Fact<T>::known(static_cast<T>(*raw));
}

Fact<bool> bool_fact(const JsonReader& r, std::string_view key) { return fact_from<bool>(r, key, &JsonReader::boolean); }
Fact<unsigned> unsigned_fact(const JsonReader& r, std::string_view key) {
  return fact_from<unsigned>(r, key, &JsonReader::count);
}
Fact<unsigned long long> counter_fact(const JsonReader& r, std::string_view key) {
  return fact_from<unsigned long long>(r, key, &JsonReader::count);
}
Fact<int> int_fact(const JsonReader& r, std::string_view key) { return fact_from<int>(r, key, &JsonReader::small_int); }
Fact<std::string> string_fact(const JsonReader& r, std::string_view key) {
  return fact_from<std::string>(r, key, &JsonReader::string);
}

json nvlink_json(const discover::NvlinkRecord& link) {
  return {{"link", link.link},
          {"p2p_supported", fact_json(link.p2p_supported)},
          {"active", fact_json(link.active)},
          {"version", fact_json(link.version)},
          {"speed_mbyte_s", fact_json(link.speed_mbyte_s)},
          {"remote_bus_id", fact_json(link.remote_bus_id)},
          {"remote_type", fact_json(link.remote_type)},
          {"replay_errors", fact_json(link.replay_errors)},
          {"recovery_errors", fact_json(link.recovery_errors)},
          {"crc_errors", fact_json(link.crc_errors)}};
}

discover::NvlinkRecord nvlink_from(const JsonReader& r) {
  discover::NvlinkRecord link;
  link.link = static_cast<unsigned>(r.count("link").value_or(0));
  link.p2p_supported = bool_fact(r, "p2p_supported");
  link.active = bool_fact(r, "active");
  link.version = unsigned_fact(r, "version");
  link.speed_mbyte_s = unsigned_fact(r, "speed_mbyte_s");
  link.remote_bus_id = string_fact(r, "remote_bus_id");
  link.remote_type = string_fact(r, "remote_type");
  link.replay_errors = counter_fact(r, "replay_errors");
  link.recovery_errors = counter_fact(r, "recovery_errors");
  link.crc_errors = counter_fact(r, "crc_errors");
  return link;
}

json processes_json(const Fact<std::vector<discover::ProcessRecord>>& processes) {
  json out;
  if (!processes.has()) {
    out["value"] = nullptr;
    out["reason"] = processes.reason;
    return out;
  }
  out["value"] = json::array();
  for (const auto& process : *processes) {
    out["value"].push_back(
        {{"pid", process.pid}, {"name", process.name}, {"used_memory_bytes", fact_json(process.used_memory_bytes)}});
  }
  return out;
}

Fact<std::vector<discover::ProcessRecord>> processes_from(const JsonReader& parent) {
  const JsonReader object = parent.object("processes");
  if (!object.has("value")) return Fact<std::vector<discover::ProcessRecord>>::unknown(object.string_or("reason"));
  std::vector<discover::ProcessRecord> processes;
  for (const auto& r : object.array("value")) {
    discover::ProcessRecord process;
    process.pid = static_cast<unsigned>(r.count("pid").value_or(0));
    process.name = r.string_or("name");
    process.used_memory_bytes = counter_fact(r, "used_memory_bytes");
    processes.push_back(std::move(process));
  }
  return Fact<std::vector<discover::ProcessRecord>>::known(std::move(processes));
}

json fabric_json(const Fact<discover::NvmlFabricRecord>& fabric) {
  json out;
  if (!fabric.has()) {
    out["value"] = nullptr;
    out["reason"] = fabric.reason;
    return out;
  }
  out["value"] = {{"state", fabric->state},           {"status", fabric->status},
                  {"status_text", fabric->status_text}, {"clique_id", fabric->clique_id},
                  {"cluster_uuid", fabric->cluster_uuid}, {"health_mask", fact_json(fabric->health_mask)}};
  return out;
}

Fact<discover::NvmlFabricRecord> fabric_from(const JsonReader& parent) {
  const JsonReader object = parent.object("fabric");
  // Captures from before the fabric was read have no such field: unknown, saying so.
  if (!object.has("value")) return Fact<discover::NvmlFabricRecord>::unknown(object.string_or("reason", "not recorded"));
  const JsonReader r = object.object("value");
  discover::NvmlFabricRecord fabric;
  fabric.state = static_cast<unsigned>(r.count("state").value_or(0));
  fabric.status = r.small_int("status").value_or(0);
  fabric.status_text = r.string_or("status_text");
  fabric.clique_id = static_cast<unsigned>(r.count("clique_id").value_or(0));
  fabric.cluster_uuid = r.string_or("cluster_uuid");
  fabric.health_mask = unsigned_fact(r, "health_mask");
  return Fact<discover::NvmlFabricRecord>::known(std::move(fabric));
}

json gpu_json(const discover::NvmlGpuRecord& gpu) {
  json out = {{"index", gpu.index},
              {"uuid", gpu.uuid},
              {"name", gpu.name},
              {"pci_bus_id", gpu.pci_bus_id},
              {"sm", fact_json(gpu.sm)},
              {"memory_bytes", fact_json(gpu.memory_bytes)},
              {"persistence_mode", fact_json(gpu.persistence_mode)},
              {"mig_enabled", fact_json(gpu.mig_enabled)},
              {"mig_pending", fact_json(gpu.mig_pending)},
              {"compute_mode", fact_json(gpu.compute_mode)},
              {"pcie_current_gen", fact_json(gpu.pcie_current_gen)},
              {"pcie_max_gen", fact_json(gpu.pcie_max_gen)},
              {"pcie_current_width", fact_json(gpu.pcie_current_width)},
              {"pcie_max_width", fact_json(gpu.pcie_max_width)},
              {"sm_clock_mhz", fact_json(gpu.sm_clock_mhz)},
              {"sm_max_clock_mhz", fact_json(gpu.sm_max_clock_mhz)},
              {"mem_clock_mhz", fact_json(gpu.mem_clock_mhz)},
              {"mem_max_clock_mhz", fact_json(gpu.mem_max_clock_mhz)},
              {"memory_bus_width_bits", fact_json(gpu.memory_bus_width_bits)},
              {"clock_event_reasons", fact_json(gpu.clock_event_reasons)},
              {"ecc_enabled", fact_json(gpu.ecc_enabled)},
              {"ecc_volatile_corrected", fact_json(gpu.ecc_volatile_corrected)},
              {"ecc_volatile_uncorrected", fact_json(gpu.ecc_volatile_uncorrected)},
              {"ecc_aggregate_corrected", fact_json(gpu.ecc_aggregate_corrected)},
              {"ecc_aggregate_uncorrected", fact_json(gpu.ecc_aggregate_uncorrected)},
              {"cpu_affinity", fact_json(gpu.cpu_affinity)},
              {"gpu_numa_node", fact_json(gpu.gpu_numa_node)},
              {"utilization_gpu_percent", fact_json(gpu.utilization_gpu_percent)},
              {"utilization_memory_percent", fact_json(gpu.utilization_memory_percent)},
              {"processes", processes_json(gpu.processes)},
              {"nvlinks", json::array()},
              {"nvlink_reason", gpu.nvlink_reason},
              {"c2c_active_links", fact_json(gpu.c2c_active_links)},
              {"c2c_max_bw_mbyte_s", fact_json(gpu.c2c_max_bw_mbyte_s)},
              {"fabric", fabric_json(gpu.fabric)}};
  for (const auto& link : gpu.nvlinks) out["nvlinks"].push_back(nvlink_json(link));
  return out;
}

discover::NvmlGpuRecord gpu_from(const JsonReader& r) {
  discover::NvmlGpuRecord gpu;
  gpu.index = static_cast<unsigned>(r.count("index").value_or(0));
  gpu.uuid = r.string_or("uuid");
  gpu.name = r.string_or("name");
  gpu.pci_bus_id = r.string_or("pci_bus_id");
  gpu.sm = int_fact(r, "sm");
  gpu.memory_bytes = counter_fact(r, "memory_bytes");
  gpu.persistence_mode = bool_fact(r, "persistence_mode");
  gpu.mig_enabled = bool_fact(r, "mig_enabled");
  gpu.mig_pending = bool_fact(r, "mig_pending");
  gpu.compute_mode = int_fact(r, "compute_mode");
  gpu.pcie_current_gen = unsigned_fact(r, "pcie_current_gen");
  gpu.pcie_max_gen = unsigned_fact(r, "pcie_max_gen");
  gpu.pcie_current_width = unsigned_fact(r, "pcie_current_width");
  gpu.pcie_max_width = unsigned_fact(r, "pcie_max_width");
  gpu.sm_clock_mhz = unsigned_fact(r, "sm_clock_mhz");
  gpu.sm_max_clock_mhz = unsigned_fact(r, "sm_max_clock_mhz");
  gpu.mem_clock_mhz = unsigned_fact(r, "mem_clock_mhz");
  gpu.mem_max_clock_mhz = unsigned_fact(r, "mem_max_clock_mhz");
  gpu.memory_bus_width_bits = unsigned_fact(r, "memory_bus_width_bits");
  gpu.clock_event_reasons = counter_fact(r, "clock_event_reasons");
  gpu.ecc_enabled = bool_fact(r, "ecc_enabled");
  gpu.ecc_volatile_corrected = counter_fact(r, "ecc_volatile_corrected");
  gpu.ecc_volatile_uncorrected = counter_fact(r, "ecc_volatile_uncorrected");
  gpu.ecc_aggregate_corrected = counter_fact(r, "ecc_aggregate_corrected");
  gpu.ecc_aggregate_uncorrected = counter_fact(r, "ecc_aggregate_uncorrected");
  const JsonReader affinity = r.object("cpu_affinity");
  if (affinity.has("value")) {
    std::vector<int> cpus;
    for (const auto cpu : affinity.integers("value")) {
      if (cpu < 0 || cpu > std::numeric_limits<int>::max()) affinity.fail("value", "a CPU number out of range");
      cpus.push_back(static_cast<int>(cpu));
    }
    gpu.cpu_affinity = Fact<std::vector<int>>::known(std::move(cpus));
  } else {
    gpu.cpu_affinity = Fact<std::vector<int>>::unknown(affinity.string_or("reason", "not recorded"));
  }
  gpu.gpu_numa_node = int_fact(r, "gpu_numa_node");
  gpu.utilization_gpu_percent = unsigned_fact(r, "utilization_gpu_percent");
  gpu.utilization_memory_percent = unsigned_fact(r, "utilization_memory_percent");
  gpu.processes = processes_from(r);
  for (const auto& link : r.array("nvlinks")) gpu.nvlinks.push_back(nvlink_from(link));
  gpu.nvlink_reason = r.string_or("nvlink_reason");
  gpu.c2c_active_links = unsigned_fact(r, "c2c_active_links");
  gpu.c2c_max_bw_mbyte_s = unsigned_fact(r, "c2c_max_bw_mbyte_s");
  gpu.fabric = fabric_from(r);
  return gpu;
}

}  // namespace

json nvml_snapshot_json(const discover::NvmlSnapshot& snapshot) {
  json out = {{"available", snapshot.available},
              {"reason", snapshot.reason},
              {"library", snapshot.library},
              {"driver_version", fact_json(snapshot.driver_version)},
              {"cuda_driver_version", fact_json(snapshot.cuda_driver_version)},
              {"gpus", json::array()},
              {"pairs", json::array()},
              {"errors", snapshot.errors}};
  for (const auto& gpu : snapshot.gpus) out["gpus"].push_back(gpu_json(gpu));
  for (const auto& pair : snapshot.pairs) {
    out["pairs"].push_back({{"a", pair.a},
                            {"b", pair.b},
                            {"topology_level", fact_json(pair.topology_level)},
                            {"p2p_read", fact_json(pair.p2p_read)},
                            {"p2p_write", fact_json(pair.p2p_write)},
                            {"p2p_nvlink", fact_json(pair.p2p_nvlink)},
                            {"p2p_atomics", fact_json(pair.p2p_atomics)}});
  }
  return out;
}

discover::NvmlSnapshot nvml_snapshot_from(const JsonReader& r) {
  discover::NvmlSnapshot snapshot;
  snapshot.available = r.boolean("available").value_or(false);
  snapshot.reason = r.string_or("reason");
  snapshot.library = r.string_or("library");
  snapshot.driver_version = string_fact(r, "driver_version");
  snapshot.cuda_driver_version = int_fact(r, "cuda_driver_version");
  for (const auto& gpu : r.array("gpus")) snapshot.gpus.push_back(gpu_from(gpu));
  for (const auto& p : r.array("pairs")) {
    discover::NvmlPairRecord pair;
    pair.a = static_cast<unsigned>(p.count("a").value_or(0));
    pair.b = static_cast<unsigned>(p.count("b").value_or(0));
    pair.topology_level = int_fact(p, "topology_level");
    pair.p2p_read = string_fact(p, "p2p_read");
    pair.p2p_write = string_fact(p, "p2p_write");
    pair.p2p_nvlink = string_fact(p, "p2p_nvlink");
    pair.p2p_atomics = string_fact(p, "p2p_atomics");
    snapshot.pairs.push_back(std::move(pair));
  }
  snapshot.errors = r.strings("errors");
  return snapshot;
}

json cuda_snapshot_json(const discover::CudaSnapshot& snapshot) {
  json out = {{"available", snapshot.available},
              {"reason", snapshot.reason},
              {"runtime_version", fact_json(snapshot.runtime_version)},
              {"driver_version", fact_json(snapshot.driver_version)},
              {"devices", json::array()},
              {"peers", json::array()},
              {"errors", snapshot.errors}};
  for (const auto& device : snapshot.devices) {
    out["devices"].push_back({{"ordinal", device.ordinal},
                              {"name", device.name},
                              {"uuid", device.uuid},
                              {"pci_bus_id", device.pci_bus_id},
                              {"sm", device.sm},
                              {"memory_bytes", device.memory_bytes},
                              {"l2_cache_bytes", device.l2_cache_bytes},
                              {"gpu_direct_rdma", fact_json(device.gpu_direct_rdma)},
                              {"dma_buf", fact_json(device.dma_buf)},
                              {"multicast", fact_json(device.multicast)}});
  }
  for (const auto& peer : snapshot.peers) {
    out["peers"].push_back({{"a", peer.a},
                            {"b", peer.b},
                            {"can_access_peer", fact_json(peer.can_access_peer)},
                            {"performance_rank", fact_json(peer.performance_rank)},
                            {"access_supported", fact_json(peer.access_supported)},
                            {"native_atomics", fact_json(peer.native_atomics)}});
  }
  return out;
}

discover::CudaSnapshot cuda_snapshot_from(const JsonReader& r) {
  discover::CudaSnapshot snapshot;
  snapshot.available = r.boolean("available").value_or(false);
  snapshot.reason = r.string_or("reason");
  snapshot.runtime_version = int_fact(r, "runtime_version");
  snapshot.driver_version = int_fact(r, "driver_version");
  for (const auto& d : r.array("devices")) {
    discover::CudaDeviceRecord device;
    device.ordinal = d.small_int("ordinal").value_or(0);
    device.name = d.string_or("name");
    device.uuid = d.string_or("uuid");
    device.pci_bus_id = d.string_or("pci_bus_id");
    device.sm = d.small_int("sm").value_or(0);
    device.memory_bytes = d.count("memory_bytes").value_or(0);
    device.l2_cache_bytes = d.integer("l2_cache_bytes").value_or(0);
    device.gpu_direct_rdma = bool_fact(d, "gpu_direct_rdma");
    device.dma_buf = bool_fact(d, "dma_buf");
    device.multicast = bool_fact(d, "multicast");
    snapshot.devices.push_back(std::move(device));
  }
  for (const auto& p : r.array("peers")) {
    discover::CudaPeerRecord peer;
    peer.a = p.small_int("a").value_or(0);
    peer.b = p.small_int("b").value_or(0);
    peer.can_access_peer = bool_fact(p, "can_access_peer");
    peer.performance_rank = int_fact(p, "performance_rank");
    peer.access_supported = bool_fact(p, "access_supported");
    peer.native_atomics = bool_fact(p, "native_atomics");
    snapshot.peers.push_back(std::move(peer));
  }
  snapshot.errors = r.strings("errors");
  return snapshot;
}

json nccl_probe_json(const discover::NcclProbeResult& probe) {
  return {{"status", probe.status},
          {"reason", probe.reason},
          {"nccl_version", probe.nccl_version},
          {"device_count", probe.device_count},
          {"init_seconds", probe.init_seconds},
          {"wall_seconds", probe.wall_seconds},
          {"dump_xml", probe.dump_xml},
          {"log", probe.log},
          {"child_env", probe.child_env}};
}

discover::NcclProbeResult nccl_probe_from(const JsonReader& r) {
  discover::NcclProbeResult probe;
  probe.status = r.string_or("status", "skipped");
  probe.reason = r.string_or("reason");
  probe.nccl_version = r.string_or("nccl_version");
  probe.device_count = r.small_int("device_count").value_or(0);
  probe.init_seconds = r.number("init_seconds").value_or(0);
  probe.wall_seconds = r.number("wall_seconds").value_or(0);
  probe.dump_xml = r.string_or("dump_xml");
  probe.log = r.string_or("log");
  probe.child_env = r.strings("child_env");
  return probe;
}

}  // namespace linkscope::capture
