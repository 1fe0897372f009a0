#include "model/system.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace linkscope::model {

using nlohmann::json;

namespace {

// ---- writing -------------------------------------------------------------------------------------------------

json nvlink_json(const Nvlink& link) {
  json out;
  out["link"] = link.link;
  put_known(out, "active", link.active);
  put_known(out, "version", link.version);
  put_known(out, "speed_gbps", link.speed_gbps);
  put_known(out, "remote_bdf", link.remote_bdf);
  put_known(out, "remote_type", link.remote_type);
  put_known(out, "p2p_supported", link.p2p_supported);
  json errors;
  put_known(errors, "replay", link.errors.replay);
  put_known(errors, "recovery", link.errors.recovery);
  put_known(errors, "crc_flit", link.errors.crc_flit);
  out["errors"] = errors;
  return with_extras(std::move(out), link.extra);
}

json pcie_json(const Pcie& pcie) {
  json out;
  put_known(out, "current_gen", pcie.current_gen);
  put_known(out, "max_gen", pcie.max_gen);
  put_known(out, "current_width", pcie.current_width);
  put_known(out, "max_width", pcie.max_width);
  out["current_speed"] = optional_json(pcie.current_speed);
  out["max_speed"] = optional_json(pcie.max_speed);
  out["sysfs_current_width"] = optional_json(pcie.sysfs_current_width);
  out["sysfs_max_width"] = optional_json(pcie.sysfs_max_width);
  out["width_degraded"] = optional_json(pcie.width_degraded);
  return with_extras(std::move(out), pcie.extra);
}

json pair_json(const GpuPair& pair) {
  json out;
  if (pair.a && pair.b) {
    out["a"] = *pair.a;
    out["b"] = *pair.b;
  }
  out["a_nvml_index"] = optional_json(pair.a_nvml_index);
  out["b_nvml_index"] = optional_json(pair.b_nvml_index);
  put_known(out, "relation", pair.relation);
  out["nvlink_count"] = pair.nvlink_count;
  out["via_nvswitch"] = pair.via_nvswitch;
  if (pair.nvml_p2p) {
    json p2p;
    put_known(p2p, "read", pair.nvml_p2p->read);
    put_known(p2p, "write", pair.nvml_p2p->write);
    put_known(p2p, "nvlink", pair.nvml_p2p->nvlink);
    put_known(p2p, "atomics", pair.nvml_p2p->atomics);
    out["nvml_p2p"] = p2p;
    put_known(out, "topology_level", pair.topology_level);
  } else {
    out["nvml_p2p"] = nullptr;
    out["nvml_p2p_reason"] = pair.nvml_p2p_reason.empty() ? "not read" : pair.nvml_p2p_reason;
  }
  put_known(out, "cuda_peer_access", pair.cuda_peer_access);
  put_known(out, "cuda_performance_rank", pair.cuda_performance_rank);
  put_known(out, "cuda_native_atomics", pair.cuda_native_atomics);
  return with_extras(std::move(out), pair.extra);
}

json nic_json(const Nic& nic) {
  json out;
  out["name"] = nic.name;
  out["kind"] = nic.kind;
  out["bus"] = nic.bus;
  out["pci_bdf"] = optional_json(nic.pci_bdf);
  out["numa_node"] = optional_json(nic.numa_node);
  out["device_path"] = optional_json(nic.device_path);
  if (nic.kind == "infiniband") {
    out["node_guid"] = optional_json(nic.node_guid);
    out["ports"] = json::array();
    for (const auto& port : nic.ports) {
      out["ports"].push_back({{"port", port.port},
                              {"state", port.state},
                              {"rate_gbps", optional_json(port.rate_gbps)},
                              {"link_layer", port.link_layer}});
    }
    out["net_devices"] = nic.net_devices;
  } else {
    out["operstate"] = optional_json(nic.operstate);
    out["speed_mbps"] = optional_json(nic.speed_mbps);
    out["virtual"] = nic.is_virtual;
    out["has_address"] = optional_json(nic.has_address);
  }
  return with_extras(std::move(out), nic.extra);
}

json path_comparison_json(const PathComparison& comparison) {
  json out;
  out["identical"] = comparison.identical;
  out["equivalent"] = comparison.equivalent;
  out["compared_lines"] = comparison.compared_lines;
  out["differences"] = json::array();
  for (const auto& d : comparison.differences) {
    out["differences"].push_back({{"node", d.node},
                                  {"target", d.target},
                                  {"linkscope", optional_json(d.linkscope)},
                                  {"nccl", optional_json(d.nccl)},
                                  {"expected", d.expected},
                                  {"explanation", d.explanation}});
  }
  return out;
}

json nccl_probe_json(const NcclTopologyProbe& probe) {
  json out;
  out["status"] = probe.status;
  out["reason"] = optional_json(probe.reason);
  if (probe.status != "skipped" || probe.nccl_version || probe.wall_seconds) {
    out["nccl_version"] = optional_json(probe.nccl_version);
    out["device_count"] = optional_json(probe.device_count);
    out["init_seconds"] = optional_json(probe.init_seconds);
    out["wall_seconds"] = optional_json(probe.wall_seconds);
    out["child_env"] = probe.child_env;
    out["dump_xml"] = optional_json(probe.dump_xml);
    out["path_lines"] = probe.path_lines;
  }
  out["versus_nccl_log"] = probe.versus_nccl_log ? path_comparison_json(*probe.versus_nccl_log) : json(nullptr);
  out["versus_nccl_dump"] = probe.versus_nccl_dump ? path_comparison_json(*probe.versus_nccl_dump) : json(nullptr);
  return with_extras(std::move(out), probe.extra);
}

json gpu_nics_json(const GpuNics& entry) {
  json nics = json::array();
  for (const auto& r : entry.nics) {
    nics.push_back({{"name", r.name},
                    {"relation", r.relation},
                    {"nccl_net", r.nccl_net},
                    {"gdr_read", optional_json(r.gdr_read)},
                    {"gdr_write", optional_json(r.gdr_write)},
                    {"gdr_reason", optional_json(r.gdr_reason)}});
  }
  return {{"cuda_ordinal", optional_json(entry.cuda_ordinal)},
          {"nvml_index", optional_json(entry.nvml_index)},
          {"pci_bdf", entry.pci_bdf},
          {"nics", nics},
          {"closest", optional_json(entry.closest)},
          {"closest_relation", optional_json(entry.closest_relation)},
          {"closest_reason", optional_json(entry.closest_reason)}};
}

json host_json(const Host& host) {
  json out;
  out["name"] = host.name;
  out["hostname"] = host.hostname;
  out["identity_source"] = host.identity_source;
  out["ranks"] = host.ranks;
  out["leader"] = host.leader;
  out["nccl_version"] = optional_json(host.nccl_version);
  out["nccl_version_reason"] = host.nccl_version_reason;
  out["error"] = optional_json(host.error);
  out["group"] = host.group;
  out["traits"] = host.traits;
  out["differences"] = host.differences;
  if (host.system) out["system"] = to_json(*host.system);
  if (host.findings || !host.hypotheses.empty() || !host.run_errors.empty() || host.run_file) {
    out["findings"] = host.findings ? to_json(*host.findings) : json(nullptr);
    out["hypotheses"] = host.hypotheses;
    out["run_errors"] = host.run_errors;
    out["run_file"] = optional_json(host.run_file);
  }
  return with_extras(std::move(out), host.extra);
}

// ---- reading -------------------------------------------------------------------------------------------------

Nvlink nvlink_from(const JsonReader& r) {
  Nvlink link;
  link.link = r.small_int("link").value_or(0);
  link.active = r.known_boolean("active");
  link.version = r.known_int("version");
  link.speed_gbps = r.known_number("speed_gbps");
  link.remote_bdf = r.known_string("remote_bdf");
  link.remote_type = r.known_string("remote_type");
  link.p2p_supported = r.known_boolean("p2p_supported");
  const JsonReader errors = r.object("errors");
  link.errors.replay = errors.known_integer("replay");
  link.errors.recovery = errors.known_integer("recovery");
  link.errors.crc_flit = errors.known_integer("crc_flit");
  link.extra = r.extras();
  return link;
}

Pcie pcie_from(const JsonReader& r) {
  Pcie pcie;
  pcie.current_gen = r.known_int("current_gen");
  pcie.max_gen = r.known_int("max_gen");
  pcie.current_width = r.known_int("current_width");
  pcie.max_width = r.known_int("max_width");
  pcie.current_speed = r.string("current_speed");
  pcie.max_speed = r.string("max_speed");
  pcie.sysfs_current_width = r.small_int("sysfs_current_width");
  pcie.sysfs_max_width = r.small_int("sysfs_max_width");
  pcie.width_degraded = r.boolean("width_degraded");
  pcie.extra = r.extras();
  return pcie;
}

GpuPair pair_from(const JsonReader& r) {
  GpuPair pair;
  pair.a = r.small_int("a");
  pair.b = r.small_int("b");
  pair.a_nvml_index = r.small_int("a_nvml_index");
  pair.b_nvml_index = r.small_int("b_nvml_index");
  pair.relation = r.known_string("relation");
  pair.nvlink_count = r.small_int("nvlink_count").value_or(0);
  pair.via_nvswitch = r.boolean("via_nvswitch").value_or(false);
  if (r.has("nvml_p2p")) {
    const JsonReader p2p = r.object("nvml_p2p");
    pair.nvml_p2p = NvmlP2p{p2p.known_string("read"), p2p.known_string("write"), p2p.known_string("nvlink"),
                            p2p.known_string("atomics")};
  }
  pair.nvml_p2p_reason = r.string_or("nvml_p2p_reason");
  pair.topology_level = r.known_int("topology_level");
  pair.cuda_peer_access = r.known_boolean("cuda_peer_access");
  pair.cuda_performance_rank = r.known_int("cuda_performance_rank");
  pair.cuda_native_atomics = r.known_boolean("cuda_native_atomics");
  pair.extra = r.extras();
  return pair;
}

Nic nic_from(const JsonReader& r) {
  Nic nic;
  nic.name = r.string_or("name");
  nic.kind = r.string_or("kind");
  nic.bus = r.string_or("bus");
  nic.pci_bdf = r.string("pci_bdf");
  nic.numa_node = r.small_int("numa_node");
  nic.device_path = r.string("device_path");
  nic.node_guid = r.string("node_guid");
  for (const auto& port : r.array("ports")) {
    nic.ports.push_back({port.small_int("port").value_or(0), port.string_or("state"), port.number("rate_gbps"),
                         port.string_or("link_layer")});
  }
  nic.net_devices = r.strings("net_devices");
  nic.operstate = r.string("operstate");
  nic.speed_mbps = r.integer("speed_mbps");
  nic.is_virtual = r.boolean("virtual").value_or(false);
  nic.has_address = r.boolean("has_address");
  nic.extra = r.extras();
  return nic;
}

PathComparison path_comparison_from(const JsonReader& r) {
  PathComparison comparison;
  comparison.identical = r.boolean("identical").value_or(false);
  comparison.equivalent = r.boolean("equivalent").value_or(false);
  comparison.compared_lines = r.small_int("compared_lines").value_or(0);
  for (const auto& d : r.array("differences")) {
    comparison.differences.push_back({d.string_or("node"), d.string_or("target"), d.string("linkscope"),
                                      d.string("nccl"), d.boolean("expected").value_or(false),
                                      d.string_or("explanation")});
  }
  return comparison;
}

NcclTopologyProbe nccl_probe_from(const JsonReader& r) {
  NcclTopologyProbe probe;
  probe.status = r.string_or("status");
  probe.reason = r.string("reason");
  probe.nccl_version = r.string("nccl_version");
  probe.device_count = r.small_int("device_count");
  probe.init_seconds = r.number("init_seconds");
  probe.wall_seconds = r.number("wall_seconds");
  probe.child_env = r.strings("child_env");
  probe.dump_xml = r.string("dump_xml");
  probe.path_lines = r.strings("path_lines");
  if (r.has("versus_nccl_log")) probe.versus_nccl_log = path_comparison_from(r.object("versus_nccl_log"));
  if (r.has("versus_nccl_dump")) probe.versus_nccl_dump = path_comparison_from(r.object("versus_nccl_dump"));
  probe.extra = r.extras();
  return probe;
}

GpuNics gpu_nics_from(const JsonReader& r) {
  GpuNics entry;
  entry.cuda_ordinal = r.small_int("cuda_ordinal");
  entry.nvml_index = r.small_int("nvml_index");
  entry.pci_bdf = r.string_or("pci_bdf");
  entry.closest = r.string("closest");
  entry.closest_relation = r.string("closest_relation");
  entry.closest_reason = r.string("closest_reason");
  for (const auto& n : r.array("nics")) {
    entry.nics.push_back({n.string_or("name"), n.string_or("relation"), n.boolean("nccl_net").value_or(false),
                          n.string("gdr_read"), n.string("gdr_write"), n.string("gdr_reason")});
  }
  return entry;
}

Host host_from(const JsonReader& r) {
  Host host;
  host.name = r.string_or("name");
  host.hostname = r.string_or("hostname");
  host.identity_source = r.string_or("identity_source");
  for (auto rank : r.integers("ranks")) host.ranks.push_back(static_cast<int>(rank));
  host.leader = r.small_int("leader").value_or(0);
  host.nccl_version = r.string("nccl_version");
  host.nccl_version_reason = r.string_or("nccl_version_reason");
  host.error = r.string("error");
  if (host.error && host.error->empty()) host.error.reset();
  host.group = r.small_int("group").value_or(0);
  host.traits = r.string_map("traits");
  host.differences = r.strings("differences");
  if (r.has("system")) host.system = std::make_shared<System>(system_from_json(r.object("system")));
  if (r.has("findings")) host.findings = findings_from_json(r.at("findings"));
  host.hypotheses = r.string_map("hypotheses");
  host.run_errors = r.strings("run_errors");
  host.run_file = r.string("run_file");
  host.extra = r.extras();
  return host;
}

}  // namespace

std::string Gpu::label() const {
  if (cuda_ordinal) return fmt::format("GPU{}", *cuda_ordinal);
  if (nvml_index) return fmt::format("NVML GPU{}", *nvml_index);
  return pci_bdf.empty() ? std::string("GPU ?") : fmt::format("GPU {}", pci_bdf);
}

const std::vector<Nvlink>& Gpu::nvlink_list() const {
  static const std::vector<Nvlink> kNone;
  return nvlinks.has_value() ? *nvlinks : kNone;
}

int Gpu::active_nvlinks() const {
  const auto& links = nvlink_list();
  return static_cast<int>(std::count_if(links.begin(), links.end(), [](const Nvlink& l) { return l.active.value_or(false); }));
}

bool Gpu::links_to_nvswitch() const {
  const auto& links = nvlink_list();
  return std::any_of(links.begin(), links.end(), [](const Nvlink& l) {
    return l.active.value_or(false) && l.remote_type.value_or("").find("switch") != std::string::npos;
  });
}

const Gpu* System::gpu_by_cuda_ordinal(int ordinal) const {
  for (const auto& gpu : gpus) {
    if (gpu.cuda_ordinal && *gpu.cuda_ordinal == ordinal) return &gpu;
  }
  return nullptr;
}

const GpuPair* System::pair(int a, int b) const {
  for (const auto& p : pairs) {
    if (p.a && p.b && ((*p.a == a && *p.b == b) || (*p.a == b && *p.b == a))) return &p;
  }
  return nullptr;
}

json to_json(const Gpu& gpu) {
  json out;
  out["cuda_ordinal"] = optional_json(gpu.cuda_ordinal);
  out["nvml_index"] = optional_json(gpu.nvml_index);
  out["uuid"] = gpu.uuid;
  out["pci_bdf"] = gpu.pci_bdf;
  out["name"] = gpu.name;
  put_known(out, "sm", gpu.sm);
  put_known(out, "memory_bytes", gpu.memory_bytes);
  put_known_if_read(out, "l2_cache_bytes", gpu.l2_cache_bytes);
  put_known(out, "numa_node", gpu.numa_node);
  put_known(out, "cpu_affinity", gpu.cpu_affinity);
  out["numa_affinity"] = gpu.numa_affinity;
  out["pcie"] = pcie_json(gpu.pcie);
  put_known(out, "gpu_direct_rdma", gpu.gpu_direct_rdma);
  put_known_if_read(out, "dma_buf", gpu.dma_buf);
  put_known_if_read(out, "multicast", gpu.multicast);
  if (!gpu.nvml_reason.empty()) {
    out["nvml_reason"] = gpu.nvml_reason;
    return with_extras(std::move(out), gpu.extra);
  }
  put_known(out, "mig_mode", gpu.mig_mode);
  put_known(out, "persistence_mode", gpu.persistence_mode);
  put_known(out, "compute_mode", gpu.compute_mode);
  json clocks;
  put_known(clocks, "sm_mhz", gpu.clocks.sm_mhz);
  put_known(clocks, "sm_max_mhz", gpu.clocks.sm_max_mhz);
  put_known(clocks, "mem_mhz", gpu.clocks.mem_mhz);
  put_known(clocks, "mem_max_mhz", gpu.clocks.mem_max_mhz);
  out["clocks"] = clocks;
  put_known_if_read(out, "memory_bus_width_bits", gpu.memory_bus_width_bits);
  put_known(out, "throttle_reasons", gpu.throttle_reasons);
  json utilization;
  put_known(utilization, "gpu_percent", gpu.utilization.gpu_percent);
  put_known(utilization, "memory_percent", gpu.utilization.memory_percent);
  out["utilization"] = utilization;
  json ecc;
  put_known(ecc, "enabled", gpu.ecc.enabled);
  put_known(ecc, "volatile_corrected", gpu.ecc.volatile_corrected);
  put_known(ecc, "volatile_uncorrected", gpu.ecc.volatile_uncorrected);
  put_known(ecc, "aggregate_corrected", gpu.ecc.aggregate_corrected);
  put_known(ecc, "aggregate_uncorrected", gpu.ecc.aggregate_uncorrected);
  out["ecc"] = ecc;
  put_known(out, "gpu_numa_id", gpu.gpu_numa_id);
  if (gpu.nvlinks.has_value()) {
    out["nvlinks"] = json::array();
    for (const auto& link : *gpu.nvlinks) out["nvlinks"].push_back(nvlink_json(link));
    if (gpu.nvlinks->empty()) out["nvlinks_reason"] = gpu.nvlinks.reason;
  } else {
    out["nvlinks"] = nullptr;
    out["nvlinks_reason"] = gpu.nvlinks.reason.empty() ? "not read" : gpu.nvlinks.reason;
  }
  if (gpu.c2c) {
    json c2c;
    c2c["active_links"] = gpu.c2c->active_links;
    put_known(c2c, "max_bw_gbps", gpu.c2c->max_bw_gbps);
    out["c2c"] = c2c;
  }
  if (gpu.fabric.has_value()) {
    json fabric;
    fabric["state"] = gpu.fabric->state;
    fabric["status"] = gpu.fabric->status;
    fabric["status_ok"] = gpu.fabric->status_ok;
    fabric["clique_id"] = gpu.fabric->clique_id;
    fabric["cluster_uuid"] = gpu.fabric->cluster_uuid;
    put_known(fabric, "health_mask", gpu.fabric->health_mask);
    out["fabric"] = fabric;
  } else if (!gpu.fabric.reason.empty()) {
    out["fabric"] = nullptr;
    out["fabric_reason"] = gpu.fabric.reason;
  }
  if (gpu.processes.has_value()) {
    out["processes"] = json::array();
    for (const auto& process : *gpu.processes) {
      json p;
      p["pid"] = process.pid;
      p["name"] = process.name;
      put_known(p, "used_memory_bytes", process.used_memory_bytes);
      out["processes"].push_back(p);
    }
  } else {
    out["processes"] = nullptr;
    out["processes_reason"] = gpu.processes.reason.empty() ? "not read" : gpu.processes.reason;
  }
  return with_extras(std::move(out), gpu.extra);
}

Gpu gpu_from_json(const JsonReader& r) {
  Gpu gpu;
  gpu.cuda_ordinal = r.small_int("cuda_ordinal");
  gpu.nvml_index = r.small_int("nvml_index");
  gpu.uuid = r.string_or("uuid");
  gpu.pci_bdf = r.string_or("pci_bdf");
  gpu.name = r.string_or("name");
  gpu.sm = r.known_int("sm");
  gpu.memory_bytes = r.known_integer("memory_bytes");
  gpu.l2_cache_bytes = r.known_integer("l2_cache_bytes");
  gpu.numa_node = r.known_int("numa_node");
  gpu.cpu_affinity = r.known_string("cpu_affinity");
  for (auto node : r.integers("numa_affinity")) gpu.numa_affinity.push_back(static_cast<int>(node));
  gpu.pcie = pcie_from(r.object("pcie"));
  gpu.gpu_direct_rdma = r.known_boolean("gpu_direct_rdma");
  gpu.dma_buf = r.known_boolean("dma_buf");
  gpu.multicast = r.known_boolean("multicast");
  gpu.nvml_reason = r.string_or("nvml_reason");
  gpu.mig_mode = r.known_string("mig_mode");
  gpu.persistence_mode = r.known_boolean("persistence_mode");
  gpu.compute_mode = r.known_string("compute_mode");
  const JsonReader clocks = r.object("clocks");
  gpu.clocks = {clocks.known_int("sm_mhz"), clocks.known_int("sm_max_mhz"), clocks.known_int("mem_mhz"),
                clocks.known_int("mem_max_mhz")};
  gpu.memory_bus_width_bits = r.known_int("memory_bus_width_bits");
  gpu.throttle_reasons = r.known_strings("throttle_reasons");
  const JsonReader utilization = r.object("utilization");
  gpu.utilization = {utilization.known_int("gpu_percent"), utilization.known_int("memory_percent")};
  const JsonReader ecc = r.object("ecc");
  gpu.ecc = {ecc.known_boolean("enabled"), ecc.known_integer("volatile_corrected"),
             ecc.known_integer("volatile_uncorrected"), ecc.known_integer("aggregate_corrected"),
             ecc.known_integer("aggregate_uncorrected")};
  gpu.gpu_numa_id = r.known_int("gpu_numa_id");
  if (r.has("nvlinks")) {
    std::vector<Nvlink> links;
    for (const auto& link : r.array("nvlinks")) links.push_back(nvlink_from(link));
    gpu.nvlinks = Known<std::vector<Nvlink>>(std::move(links));
  }
  gpu.nvlinks.reason = r.string_or("nvlinks_reason");
  if (r.has("c2c")) {
    const JsonReader c2c = r.object("c2c");
    gpu.c2c = C2c{c2c.small_int("active_links").value_or(0), c2c.known_number("max_bw_gbps")};
  }
  if (r.has("fabric")) {
    const JsonReader fabric = r.object("fabric");
    GpuFabric read;
    read.state = fabric.string_or("state");
    read.status = fabric.string_or("status");
    read.status_ok = fabric.boolean("status_ok").value_or(true);
    read.clique_id = fabric.integer("clique_id").value_or(0);
    read.cluster_uuid = fabric.string_or("cluster_uuid");
    read.health_mask = fabric.known_integer("health_mask");
    gpu.fabric = Known<GpuFabric>(std::move(read));
  } else {
    gpu.fabric.reason = r.string_or("fabric_reason");
  }
  if (r.has("processes")) {
    std::vector<GpuProcess> processes;
    for (const auto& p : r.array("processes")) {
      processes.push_back({p.integer("pid").value_or(0), p.string_or("name"), p.known_integer("used_memory_bytes")});
    }
    gpu.processes = Known<std::vector<GpuProcess>>(std::move(processes));
  }
  gpu.processes.reason = r.string_or("processes_reason");
  gpu.extra = r.extras();
  return gpu;
}

json to_json(const System& system) {
  json out;
  json driver;
  driver["available"] = system.driver.available;
  driver["library"] = system.driver.library;
  put_known(driver, "version", system.driver.version);
  put_known(driver, "cuda_driver_version", system.driver.cuda_driver_version);
  driver["reason"] = system.driver.available ? json(nullptr) : json(system.driver.reason);
  out["driver"] = driver;
  out["cuda"] = {{"available", system.cuda.available},
                 {"runtime_version", optional_json(system.cuda.runtime_version)},
                 {"driver_version", optional_json(system.cuda.driver_version)},
                 {"device_count", system.cuda.device_count},
                 {"reason", system.cuda.available ? json(nullptr) : json(system.cuda.reason)}};
  out["sysfs_root"] = system.sysfs_root;
  if (system.capture) out["capture"] = *system.capture;
  if (system.nvidia_services) out["nvidia_services"] = *system.nvidia_services;
  if (system.cpu) {
    out["cpu"] = {{"arch", system.cpu->arch},
                  {"vendor", optional_json(system.cpu->vendor)},
                  {"family_id", optional_json(system.cpu->family_id)},
                  {"model_id", optional_json(system.cpu->model_id)},
                  {"model_name", system.cpu->model_name},
                  {"logical_cpus", system.cpu->logical_cpus}};
  } else {
    out["cpu"] = nullptr;
    out["cpu_reason"] = system.cpu_reason.empty() ? "not read" : system.cpu_reason;
  }
  out["gpus"] = json::array();
  for (const auto& gpu : system.gpus) out["gpus"].push_back(to_json(gpu));
  out["pairs"] = json::array();
  for (const auto& pair : system.pairs) out["pairs"].push_back(pair_json(pair));
  out["numa_nodes"] = json::array();
  for (const auto& node : system.numa_nodes) {
    out["numa_nodes"].push_back({{"id", node.id},
                                 {"cpus", node.cpus},
                                 {"distances", node.distances},
                                 {"memory_bytes", optional_json(node.memory_bytes)}});
  }
  out["nics"] = json::array();
  for (const auto& nic : system.nics) out["nics"].push_back(nic_json(nic));
  out["pci_display_devices"] = json::array();
  for (const auto& d : system.pci_display_devices) {
    out["pci_display_devices"].push_back({{"pci_bdf", d.pci_bdf},
                                          {"class", optional_json(d.class_id)},
                                          {"vendor", optional_json(d.vendor)},
                                          {"device", optional_json(d.device)},
                                          {"numa_node", optional_json(d.numa_node)},
                                          {"current_link_speed", optional_json(d.current_link_speed)},
                                          {"current_width", optional_json(d.current_width)},
                                          {"max_link_speed", optional_json(d.max_link_speed)},
                                          {"max_width", optional_json(d.max_width)},
                                          {"local_cpulist", optional_json(d.local_cpulist)}});
  }
  if (system.smi_matrix) {
    const SmiMatrix& m = *system.smi_matrix;
    out["smi_matrix"] = {{"labels", m.labels},
                         {"rows", m.cells},
                         {"cpu_affinity", m.cpu_affinity},
                         {"numa_affinity", m.numa_affinity},
                         {"gpu_numa_id", m.gpu_numa_id},
                         {"nic_legend", m.nic_legend}};
  }
  const Visibility& v = system.visibility;
  json visibility;
  visibility["nvml_gpu_count"] = optional_json(v.nvml_gpu_count);
  visibility["cuda_device_count"] = optional_json(v.cuda_device_count);
  visibility["cuda_visible_devices"] = optional_json(v.cuda_visible_devices);
  visibility["cuda_device_order"] = optional_json(v.cuda_device_order);
  visibility["hidden"] = json::array();
  for (const auto& hidden : v.hidden) {
    json entry = {{"nvml_index", optional_json(hidden.nvml_index)},
                  {"uuid", hidden.uuid},
                  {"pci_bdf", hidden.pci_bdf},
                  {"reason", hidden.reason}};
    if (hidden.gpu) entry["gpu"] = to_json(*hidden.gpu);
    visibility["hidden"].push_back(entry);
  }
  visibility["hidden_pairs"] = json::array();
  for (const auto& pair : v.hidden_pairs) visibility["hidden_pairs"].push_back(pair_json(pair));
  visibility["notes"] = v.notes;
  out["visibility"] = visibility;
  if (system.synthesized_topology) {
    out["synthesized_topology"] = {{"gpu_count", system.synthesized_topology->gpu_count},
                                   {"net_transport", system.synthesized_topology->net_transport},
                                   {"notes", system.synthesized_topology->notes}};
    out["gpu_nics"] = json::array();
    for (const auto& entry : system.gpu_nics) out["gpu_nics"].push_back(gpu_nics_json(entry));
  }
  if (system.host_evidence) out["host_evidence"] = to_json(*system.host_evidence);
  if (system.nccl_topology) out["nccl_topology"] = nccl_probe_json(*system.nccl_topology);
  if (system.discovery_seconds) {
    const DiscoverySeconds& t = *system.discovery_seconds;
    out["discovery_seconds"] = {{"sysfs", t.sysfs},         {"nvml", t.nvml},
                                {"cuda", t.cuda},           {"synthesis", t.synthesis},
                                {"nccl_wait", t.nccl_wait}, {"total", t.total}};
  }
  out["errors"] = system.errors;
  out["warnings"] = system.warnings;
  if (!system.hosts.empty()) {
    out["hosts"] = json::array();
    for (const auto& host : system.hosts) out["hosts"].push_back(host_json(host));
    out["host_groups"] = json::array();
    for (const auto& group : system.host_groups) out["host_groups"].push_back({{"hosts", group}});
    out["host_differences"] = json::array();
    for (const auto& d : system.host_differences) {
      json others = json::array();
      for (const auto& other : d.others) others.push_back({{"host", other.host}, {"value", other.value}});
      out["host_differences"].push_back({{"trait", d.trait},
                                         {"label", d.label},
                                         {"common_value", d.common_value},
                                         {"common_hosts", d.common_hosts},
                                         {"others", others}});
    }
  }
  return with_extras(std::move(out), system.extra);
}

System system_from_json(const JsonReader& r) {
  System system;
  system.present = r.is_object() && !r.json().empty();
  if (!system.present) return system;
  const JsonReader driver = r.object("driver");
  system.driver.reported = r.has("driver");
  system.driver.available = driver.boolean("available").value_or(false);
  system.driver.library = driver.string_or("library");
  system.driver.version = driver.known_string("version");
  system.driver.cuda_driver_version = driver.known_int("cuda_driver_version");
  system.driver.reason = driver.string_or("reason");
  const JsonReader cuda = r.object("cuda");
  system.cuda.available = cuda.boolean("available").value_or(false);
  system.cuda.runtime_version = cuda.small_int("runtime_version");
  system.cuda.driver_version = cuda.small_int("driver_version");
  system.cuda.device_count = cuda.small_int("device_count").value_or(0);
  system.cuda.reason = cuda.string_or("reason");
  system.sysfs_root = r.string_or("sysfs_root");
  system.capture = r.string("capture");
  if (r.has("nvidia_services")) system.nvidia_services = r.strings("nvidia_services");
  if (r.has("cpu")) {
    const JsonReader cpu = r.object("cpu");
    system.cpu = Cpu{cpu.string_or("arch"),       cpu.string("vendor"),       cpu.small_int("family_id"),
                     cpu.small_int("model_id"),   cpu.string_or("model_name"), cpu.small_int("logical_cpus").value_or(0)};
  }
  system.cpu_reason = r.string_or("cpu_reason");
  for (const auto& gpu : r.array("gpus")) system.gpus.push_back(gpu_from_json(gpu));
  for (const auto& pair : r.array("pairs")) system.pairs.push_back(pair_from(pair));
  for (const auto& node : r.array("numa_nodes")) {
    NumaNode numa;
    numa.id = node.small_int("id").value_or(0);
    numa.cpus = node.string_or("cpus");
    for (auto d : node.integers("distances")) numa.distances.push_back(static_cast<int>(d));
    numa.memory_bytes = node.integer("memory_bytes");
    system.numa_nodes.push_back(numa);
  }
  for (const auto& nic : r.array("nics")) system.nics.push_back(nic_from(nic));
  for (const auto& d : r.array("pci_display_devices")) {
    system.pci_display_devices.push_back({d.string_or("pci_bdf"), d.string("class"), d.string("vendor"),
                                          d.string("device"), d.small_int("numa_node"), d.string("current_link_speed"),
                                          d.string("max_link_speed"), d.small_int("current_width"),
                                          d.small_int("max_width"), d.string("local_cpulist")});
  }
  if (r.has("smi_matrix")) {
    const JsonReader m = r.object("smi_matrix");
    system.smi_matrix = SmiMatrix{m.strings("labels"),       m.string_rows("rows"),       m.strings("cpu_affinity"),
                                  m.strings("numa_affinity"), m.strings("gpu_numa_id"), m.strings("nic_legend")};
  }
  const JsonReader v = r.object("visibility");
  system.visibility.nvml_gpu_count = v.small_int("nvml_gpu_count");
  system.visibility.cuda_device_count = v.small_int("cuda_device_count");
  system.visibility.cuda_visible_devices = v.string("cuda_visible_devices");
  system.visibility.cuda_device_order = v.string("cuda_device_order");
  for (const auto& h : v.array("hidden")) {
    HiddenGpu hidden;
    hidden.nvml_index = h.small_int("nvml_index");
    hidden.uuid = h.string_or("uuid");
    hidden.pci_bdf = h.string_or("pci_bdf");
    hidden.reason = h.string_or("reason");
    if (h.has("gpu")) hidden.gpu = gpu_from_json(h.object("gpu"));
    system.visibility.hidden.push_back(std::move(hidden));
  }
  for (const auto& pair : v.array("hidden_pairs")) system.visibility.hidden_pairs.push_back(pair_from(pair));
  system.visibility.notes = v.strings("notes");
  if (r.has("synthesized_topology")) {
    const JsonReader s = r.object("synthesized_topology");
    system.synthesized_topology =
        SynthesizedTopology{s.small_int("gpu_count").value_or(0), s.string_or("net_transport"), s.strings("notes")};
  }
  for (const auto& entry : r.array("gpu_nics")) system.gpu_nics.push_back(gpu_nics_from(entry));
  if (r.has("host_evidence")) system.host_evidence = host_evidence_from_json(r.object("host_evidence"));
  if (r.has("nccl_topology")) system.nccl_topology = nccl_probe_from(r.object("nccl_topology"));
  if (r.has("discovery_seconds")) {
    const JsonReader t = r.object("discovery_seconds");
    system.discovery_seconds = DiscoverySeconds{t.number("sysfs").value_or(0),     t.number("nvml").value_or(0),
                                                t.number("cuda").value_or(0),      t.number("synthesis").value_or(0),
                                                t.number("nccl_wait").value_or(0), t.number("total").value_or(0)};
  }
  system.errors = r.strings("errors");
  system.warnings = r.strings("warnings");
  for (const auto& host : r.array("hosts")) system.hosts.push_back(host_from(host));
  for (const auto& group : r.array("host_groups")) system.host_groups.push_back(group.strings("hosts"));
  for (const auto& d : r.array("host_differences")) {
    HostDifference difference{d.string_or("trait"), d.string_or("label"), d.string_or("common_value"),
                              d.strings("common_hosts"), {}};
    for (const auto& other : d.array("others")) difference.others.push_back({other.string_or("host"), other.string_or("value")});
    system.host_differences.push_back(std::move(difference));
  }
  system.extra = r.extras();
  return system;
}

}  // namespace linkscope::model
