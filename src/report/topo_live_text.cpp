#include "report/topo_live_text.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/text.hpp"
#include "core/text_table.hpp"
#include "discover/cpu_list.hpp"
#include "discover/gpu_nic_relations.hpp"
#include "discover/numa_reader.hpp"

namespace linkscope::report {

namespace {

using discover::Fact;
using discover::GpuFacts;
using discover::NicDevice;
using discover::PairFacts;
using discover::PciDevice;
using discover::SystemFacts;


const char* const kSmiLegend =
    "Legend:\n"
    "\n"
    "  X    = Self\n"
    "  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n"
    "  NODE = Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node\n"
    "  PHB  = Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)\n"
    "  PXB  = Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)\n"
    "  PIX  = Connection traversing at most a single PCIe bridge\n"
    "  NV#  = Connection traversing a bonded set of # NVLinks\n";

// One row or column of the nvidia-smi matrix.
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
  const bool have_nvml = facts.nvml_gpu_count() > 0;
  if (have_nvml) {
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
    for (const PciDevice* pci : discover::sysfs_display_devices(facts.host)) {
      MatrixDevice device;
      device.label = fmt::format("GPU{}", index++);
      device.pci = pci;
      if (pci->local_cpulist) {
        device.cpu_affinity = *pci->local_cpulist;
        try {
          device.numa_affinity = numa_list(discover::numa_nodes_of_cpus(facts.host.numa_nodes, parse_cpu_list(*pci->local_cpulist)));
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
  if (&row == &column) return " X ";
  if (row.gpu != nullptr && column.gpu != nullptr) {
    const PairFacts* pair = find_pair(facts, *row.gpu->nvml_index, *column.gpu->nvml_index);
    if (pair != nullptr && pair->relation.has()) return *pair->relation;
  }
  if (row.pci != nullptr && column.pci != nullptr) return facts.host.pci.relation(*row.pci, *column.pci);
  return "?";
}

std::string yes_no(const Fact<bool>& fact, const char* yes = "yes", const char* no = "no") {
  return fact.has() ? (*fact ? yes : no) : "?";
}

template <typename T>
std::string number(const Fact<T>& fact) {
  return fact.has() ? fmt::format("{}", *fact) : "?";
}

std::string gib(unsigned long long bytes) { return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1ULL << 30)); }

std::string pcie_text(const GpuFacts& gpu) {
  if (gpu.nvml && gpu.nvml->pcie_current_gen.has() && gpu.nvml->pcie_current_width.has()) {
    std::string text = fmt::format("Gen{} x{}", *gpu.nvml->pcie_current_gen, *gpu.nvml->pcie_current_width);
    if (gpu.nvml->pcie_max_gen.has() && gpu.nvml->pcie_max_width.has()) {
      text += fmt::format(" (max Gen{} x{})", *gpu.nvml->pcie_max_gen, *gpu.nvml->pcie_max_width);
    }
    return text;
  }
  if (gpu.pci && gpu.pci->current_generation() && gpu.pci->current_width()) {
    return fmt::format("Gen{} x{} (max Gen{} x{})", *gpu.pci->current_generation(), *gpu.pci->current_width(),
                       gpu.pci->max_generation().value_or(0), gpu.pci->max_width().value_or(0));
  }
  return "?";
}

std::string gpu_table(const SystemFacts& facts) {
  std::vector<std::vector<std::string>> rows = {{"CUDA", "NVML", "BDF", "NAME", "UUID", "SM", "MEMORY", "NUMA", "CPUS", "PCIE",
                                                 "MIG", "PERSIST", "SM MHZ", "THROTTLE", "ECC UNC", "UTIL", "PROCS"}};
  for (const auto& gpu : facts.gpus) {
    std::vector<std::string> row;
    row.push_back(gpu.cuda_ordinal ? std::to_string(*gpu.cuda_ordinal) : "-");
    row.push_back(gpu.nvml_index ? std::to_string(*gpu.nvml_index) : "-");
    row.push_back(gpu.pci_bdf);
    row.push_back(gpu.name);
    row.push_back(gpu.uuid);
    const auto& nvml = gpu.nvml;
    row.push_back(nvml && nvml->sm.has() ? std::to_string(*nvml->sm) : gpu.cuda ? std::to_string(gpu.cuda->sm) : "?");
    row.push_back(nvml && nvml->memory_bytes.has() ? gib(*nvml->memory_bytes) : gpu.cuda ? gib(gpu.cuda->memory_bytes) : "?");
    row.push_back(gpu.numa_node.has() ? std::to_string(*gpu.numa_node) : "-");
    row.push_back(gpu.cpu_affinity.has() ? format_cpu_list(*gpu.cpu_affinity) : "?");
    std::string pcie = pcie_text(gpu);
    if (gpu.pci && gpu.pci->current_width() && gpu.pci->max_width() && *gpu.pci->current_width() < *gpu.pci->max_width()) {
      pcie += " DEGRADED";
    }
    row.push_back(pcie);
    if (!nvml) {
      row.insert(row.end(), {"?", "?", "?", "?", "?", "?", "?"});
      rows.push_back(row);
      continue;
    }
    row.push_back(nvml->mig_enabled.has() ? (*nvml->mig_enabled ? "enabled" : "off") : "?");
    row.push_back(yes_no(nvml->persistence_mode, "on", "off"));
    row.push_back(fmt::format("{}/{}", number(nvml->sm_clock_mhz), number(nvml->sm_max_clock_mhz)));
    if (nvml->clock_event_reasons.has()) {
      const auto names = discover::clock_event_reason_names(*nvml->clock_event_reasons);
      row.push_back(names.empty() ? "none" : join(names, ","));
    } else {
      row.push_back("?");
    }
    row.push_back(nvml->ecc_enabled.has() && !*nvml->ecc_enabled
                      ? "ecc off"
                      : fmt::format("{}/{}", number(nvml->ecc_volatile_uncorrected), number(nvml->ecc_aggregate_uncorrected)));
    row.push_back(nvml->utilization_gpu_percent.has() ? fmt::format("{}%", *nvml->utilization_gpu_percent) : "?");
    row.push_back(nvml->processes.has() ? std::to_string(nvml->processes->size()) : "?");
    rows.push_back(row);
  }
  return aligned_table(rows, "  ");
}

std::string nvlink_summary(const SystemFacts& facts) {
  std::string out;
  for (const auto& gpu : facts.gpus) {
    if (!gpu.nvml) continue;
    const std::string label = gpu.nvml_index ? fmt::format("GPU{}", *gpu.nvml_index) : gpu.pci_bdf;
    const auto& links = gpu.nvml->nvlinks;
    if (links.empty()) {
      out += fmt::format("  {}: no NVLink ({})\n", label, gpu.nvml->nvlink_reason);
      continue;
    }
    int active = 0;
    double total_gbps = 0;
    std::set<unsigned> speeds, versions;
    int unknown_speed = 0;
    std::map<std::string, int> remotes;
    unsigned long long replay = 0, recovery = 0, crc = 0;
    bool errors_known = true;
    for (const auto& link : links) {
      if (!link.active.value_or(false)) continue;
      ++active;
      if (link.speed_mbyte_s.has()) {
        speeds.insert(*link.speed_mbyte_s);
        total_gbps += *link.speed_mbyte_s / 1000.0;
      } else {
        ++unknown_speed;
      }
      if (link.version.has()) versions.insert(*link.version);
      std::string remote = link.remote_type.value_or("unknown");
      if (remote == "gpu" && link.remote_bus_id.has()) {
        const auto bdf = discover::canonical_bdf(*link.remote_bus_id).value_or(*link.remote_bus_id);
        const GpuFacts* peer = nullptr;
        for (const auto& other : facts.gpus) {
          if (other.pci_bdf == bdf) peer = &other;
        }
        remote = peer != nullptr && peer->nvml_index ? fmt::format("GPU{}", *peer->nvml_index) : "GPU " + bdf;
      } else if (remote == "nvswitch") {
        remote = "NVSwitch";
      }
      ++remotes[remote];
      if (link.replay_errors.has() && link.recovery_errors.has() && link.crc_errors.has()) {
        replay += *link.replay_errors;
        recovery += *link.recovery_errors;
        crc += *link.crc_errors;
      } else {
        errors_known = false;
      }
    }
    std::vector<std::string> speed_text;
    for (unsigned s : speeds) speed_text.push_back(fmt::format("{:.3f}", s / 1000.0));
    std::vector<std::string> remote_text;
    for (const auto& [name, count] : remotes) remote_text.push_back(fmt::format("{} x{}", name, count));
    std::vector<std::string> version_text;
    for (unsigned v : versions) version_text.push_back(std::to_string(v));
    out += fmt::format("  {}: {}/{} links active", label, active, links.size());
    if (!version_text.empty()) out += ", NVLink " + join(version_text, "/");
    if (!speed_text.empty()) {
      out += fmt::format(", {} GB/s each, {:.3f} GB/s total per direction", join(speed_text, "/"), total_gbps);
    }
    if (unknown_speed > 0) out += fmt::format(" ({} link speed(s) unknown)", unknown_speed);
    if (!remote_text.empty()) out += " -> " + join(remote_text, ", ");
    out += errors_known ? fmt::format("; errors: replay {} recovery {} crc {}", replay, recovery, crc)
                        : "; error counters not all readable";
    out += "\n";
  }
  return out;
}

std::string combined_p2p_matrix(const SystemFacts& facts) {
  std::vector<const GpuFacts*> gpus;
  for (const auto& gpu : facts.gpus) {
    if (gpu.nvml_index) gpus.push_back(&gpu);
  }
  if (gpus.empty()) return "";
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {""};
  for (const auto* gpu : gpus) header.push_back(fmt::format("GPU{}", *gpu->nvml_index));
  rows.push_back(header);
  for (const auto* a : gpus) {
    std::vector<std::string> row = {fmt::format("GPU{}", *a->nvml_index)};
    for (const auto* b : gpus) {
      if (a == b) {
        row.push_back("X");
        continue;
      }
      const PairFacts* pair = find_pair(facts, *a->nvml_index, *b->nvml_index);
      if (pair == nullptr || !pair->nvml) {
        row.push_back("?");
        continue;
      }
      const std::vector<std::string> codes = {pair->nvml->p2p_read.value_or("?"), pair->nvml->p2p_write.value_or("?"),
                                              pair->nvml->p2p_nvlink.value_or("?"), pair->nvml->p2p_atomics.value_or("?")};
      const bool all_ok = std::all_of(codes.begin(), codes.end(), [](const std::string& c) { return c == "OK"; });
      row.push_back(all_ok ? "OK" : join(codes, "/"));
    }
    rows.push_back(row);
  }
  return aligned_table(rows, "  ");
}

std::string cuda_peer_matrix(const SystemFacts& facts) {
  std::vector<const GpuFacts*> gpus;
  for (const auto& gpu : facts.gpus) {
    if (gpu.cuda_ordinal) gpus.push_back(&gpu);
  }
  std::sort(gpus.begin(), gpus.end(), [](const GpuFacts* a, const GpuFacts* b) { return *a->cuda_ordinal < *b->cuda_ordinal; });
  if (gpus.size() < 2) return "";
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {""};
  for (const auto* gpu : gpus) header.push_back(fmt::format("CUDA{}", *gpu->cuda_ordinal));
  rows.push_back(header);
  for (const auto* a : gpus) {
    std::vector<std::string> row = {fmt::format("CUDA{}", *a->cuda_ordinal)};
    for (const auto* b : gpus) {
      if (a == b) {
        row.push_back("X");
        continue;
      }
      const PairFacts* found = nullptr;
      for (const auto& pair : facts.pairs) {
        if (pair.a_cuda == a->cuda_ordinal && pair.b_cuda == b->cuda_ordinal) found = &pair;
      }
      if (found == nullptr || !found->cuda || !found->cuda->can_access_peer.has()) {
        row.push_back("?");
      } else if (!*found->cuda->can_access_peer) {
        row.push_back("no");
      } else {
        row.push_back(found->cuda->performance_rank.has() ? fmt::format("yes (rank {})", *found->cuda->performance_rank) : "yes");
      }
    }
    rows.push_back(row);
  }
  return aligned_table(rows, "  ");
}

std::string nic_lines(const SystemFacts& facts) {
  std::string out;
  for (const auto& nic : facts.host.nics) {
    std::string line = fmt::format("  {:<10} {:<10}", nic.name, nic.kind);
    line += nic.pci_bdf ? fmt::format(" {} ({})", *nic.pci_bdf, nic.bus) : fmt::format(" {}", nic.bus.empty() ? "no device" : nic.bus);
    if (nic.numa_node && *nic.numa_node >= 0) line += fmt::format(" NUMA {}", *nic.numa_node);
    for (const auto& port : nic.ports) {
      line += fmt::format(" port {} {}", port.port, port.state);
      if (port.rate_gbit_s) line += fmt::format(" {:g} Gb/s", *port.rate_gbit_s);
      if (!port.link_layer.empty()) line += " " + port.link_layer;
    }
    if (nic.kind != "infiniband") {
      if (nic.operstate) line += " " + *nic.operstate;
      if (nic.speed_mbit_s) line += fmt::format(" {:g} Gb/s", *nic.speed_mbit_s / 1000.0);
    }
    out += line + "\n";
  }
  return out.empty() ? "  none\n" : out;
}

// Each CUDA GPU's NICs, closest first, as `system.gpu_nics` records them.
std::string gpu_nic_lines(const discover::LiveDiscovery& live, const discover::LiveModelCheck& check) {
  const nlohmann::json gpus =
      discover::gpu_nics_json(live.facts, live.synthesized.nets, check.ours ? check.ours->json : nlohmann::json());
  std::string out;
  for (const auto& gpu : gpus) {
    if (gpu["nics"].empty()) continue;
    std::vector<std::string> parts;
    for (const auto& nic : gpu["nics"]) {
      std::string part = nic["name"].get<std::string>() + " " + nic["relation"].get<std::string>();
      if (nic["nccl_net"].get<bool>()) {
        part += " (NCCL NET";
        if (nic["gdr_read"].is_string() && nic["gdr_write"].is_string()) {
          part += ", GPUDirect RDMA read " + nic["gdr_read"].get<std::string>() + " / write " +
                  nic["gdr_write"].get<std::string>();
        }
        part += ")";
      }
      parts.push_back(part);
    }
    out += fmt::format("  CUDA{}{}: {}\n", gpu["cuda_ordinal"].get<int>(),
                       gpu["nvml_index"].is_number() ? fmt::format(" (GPU{})", gpu["nvml_index"].get<int>()) : "",
                       join(parts, ", "));
  }
  return out;
}

std::string numa_lines(const SystemFacts& facts) {
  std::string out;
  for (const auto& node : facts.host.numa_nodes) {
    out += fmt::format("  node {}: CPUs {}", node.id, format_cpu_list(node.cpus));
    if (node.memory_total_bytes) out += ", " + gib(static_cast<unsigned long long>(*node.memory_total_bytes));
    out += "\n";
  }
  return out.empty() ? "  none listed\n" : out;
}

std::string version_text(const Fact<int>& version) {
  return version.has() ? fmt::format("{}.{}", *version / 1000, (*version % 1000) / 10) : "?";
}

std::string comparison_text(const discover::PathComparison& comparison, const std::string& what) {
  if (comparison.identical()) return fmt::format("  {}: identical ({} path lines)\n", what, comparison.compared_lines);
  std::string out = fmt::format("  {}: {} difference(s){}\n", what, comparison.differences.size(),
                                comparison.equivalent() ? ", all explained by NCCL's version" : "");
  for (const auto& d : comparison.differences) {
    const std::string where = d.target.empty() ? d.node : d.node + " -> " + d.target;
    out += fmt::format("    {}: linkscope {}, NCCL {}\n", where, d.ours.empty() ? "(none)" : d.ours,
                       d.theirs.empty() ? "(none)" : d.theirs);
    out += fmt::format("      {}{}\n", d.expected ? "expected: " : "", d.explanation);
  }
  return out;
}

}  // namespace

std::string render_smi_matrix(const SystemFacts& facts) {
  const std::vector<MatrixDevice> devices = matrix_devices(facts);
  if (devices.empty()) return "";
  std::vector<std::string> header = {""};
  for (const auto& device : devices) header.push_back(device.label);
  header.insert(header.end(), {"CPU Affinity", "NUMA Affinity", "GPU NUMA ID"});
  std::string out = join(header, "\t") + "\n";
  for (const auto& row : devices) {
    std::vector<std::string> cells = {row.label};
    for (const auto& column : devices) cells.push_back(cell(facts, row, column));
    if (row.is_nic) {
      cells.insert(cells.end(), {"", "", "", ""});
    } else {
      cells.insert(cells.end(), {row.cpu_affinity, row.numa_affinity, "", row.gpu_numa_id});
    }
    out += join(cells, "\t") + "\n";
  }
  out += "\n";
  out += kSmiLegend;
  std::string nic_legend;
  for (const auto& device : devices) {
    if (!device.is_nic) continue;
    for (const auto& nic : facts.host.nics) {
      if (nic.kind == "infiniband" && nic.pci_bdf && device.pci != nullptr && *nic.pci_bdf == device.pci->bdf) {
        nic_legend += fmt::format("  {}: {}\n", device.label, nic.name);
      }
    }
  }
  if (!nic_legend.empty()) out += "\nNIC Legend:\n\n" + nic_legend;
  return out;
}

std::string render_p2p_matrix(const SystemFacts& facts, const std::string& capability) {
  std::vector<const GpuFacts*> gpus;
  for (const auto& gpu : facts.gpus) {
    if (gpu.nvml_index) gpus.push_back(&gpu);
  }
  if (gpus.empty()) return "";
  std::string out = " \t";
  for (const auto* gpu : gpus) out += fmt::format("GPU{}\t", *gpu->nvml_index);
  out += "\n";
  for (const auto* a : gpus) {
    out += fmt::format(" GPU{}\t", *a->nvml_index);
    for (const auto* b : gpus) {
      std::string code = "X";
      if (a != b) {
        const PairFacts* pair = find_pair(facts, *a->nvml_index, *b->nvml_index);
        const Fact<std::string>* status = nullptr;
        if (pair != nullptr && pair->nvml) {
          if (capability == "read") status = &pair->nvml->p2p_read;
          if (capability == "write") status = &pair->nvml->p2p_write;
          if (capability == "nvlink") status = &pair->nvml->p2p_nvlink;
          if (capability == "atomics") status = &pair->nvml->p2p_atomics;
        }
        code = status != nullptr && status->has() ? **status : "?";
      }
      out += code + "\t";
    }
    out += "\n";
  }
  return out;
}

std::string render_sysfs_only_text(const SystemFacts& facts) {
  std::string out = fmt::format("linkscope topo: sysfs only{}\n",
                                facts.host.sysfs_root == "/" ? "" : fmt::format(" (root {})", facts.host.sysfs_root));
  out += fmt::format("NVIDIA driver: unavailable: {}\n", facts.driver.reason);
  out += "\nPCI display devices (class 0x03):\n";
  std::vector<std::vector<std::string>> rows = {{"BDF", "CLASS", "VENDOR", "DEVICE", "NUMA", "CPUS", "LINK (current / max)"}};
  for (const PciDevice* device : discover::sysfs_display_devices(facts.host)) {
    const auto numa = device->numa_node_id();
    std::string link = "?";
    if (device->current_link_speed && device->max_link_speed) {
      link = fmt::format("{} x{} / {} x{}", *device->current_link_speed, device->current_link_width.value_or("?"),
                         *device->max_link_speed, device->max_link_width.value_or("?"));
    }
    rows.push_back({device->bdf, device->class_id.value_or("?"), device->vendor.value_or("?"), device->device.value_or("?"),
                    numa && *numa >= 0 ? std::to_string(*numa) : "-", device->local_cpulist.value_or("?"), link});
  }
  out += rows.size() > 1 ? aligned_table(rows, "  ") : "  none\n";
  const std::string matrix = render_smi_matrix(facts);
  if (!matrix.empty()) out += "\nPCIe relations from sysfs (no NVLink information without the driver):\n" + matrix;
  out += "\nNUMA nodes:\n" + numa_lines(facts);
  out += "\nNetwork devices:\n" + nic_lines(facts);
  for (const auto& warning : facts.host.warnings) out += "warning: " + warning + "\n";
  return out;
}

std::string render_topo_live_text(const discover::LiveDiscovery& live, const discover::LiveModelCheck& check) {
  const SystemFacts& facts = live.facts;
  std::string out = fmt::format(
      "linkscope topo: driver {} (CUDA {}), CUDA runtime {}: {} GPU(s) in NVML, {} visible to CUDA\n",
      facts.driver.version.value_or("?"), version_text(facts.driver.cuda_driver_version), version_text(facts.cuda.runtime_version),
      facts.nvml_gpu_count(), facts.cuda.device_count);
  if (!facts.cuda.available) out += fmt::format("CUDA: unavailable: {}\n", facts.cuda.reason);
  out += "\nTopology (as nvidia-smi topo -m; GPUn = NVML index):\n";
  out += render_smi_matrix(facts);
  out += "\nGPUs:\n" + gpu_table(facts);
  for (const auto& hidden : facts.mapping.hidden) {
    out += fmt::format("  NVML GPU {} ({}, {}) is not visible to CUDA: {}\n", hidden.nvml_index, hidden.pci_bdf, hidden.uuid,
                       hidden.reason);
  }
  for (const auto& note : facts.mapping.notes) out += "  note: " + note + "\n";
  const std::string nvlinks = nvlink_summary(facts);
  if (!nvlinks.empty()) out += "\nNVLink (as nvidia-smi nvlink -s, per direction):\n" + nvlinks;
  const std::string p2p = combined_p2p_matrix(facts);
  if (!p2p.empty()) {
    out += "\nNVML P2P status (read/write/nvlink/atomics; OK = all four; as nvidia-smi topo -p2p r|w|n|a):\n" + p2p;
  }
  const std::string peers = cuda_peer_matrix(facts);
  if (!peers.empty()) out += "\nCUDA peer access (cudaDeviceCanAccessPeer, performance rank; by CUDA ordinal):\n" + peers;
  out += "\nNUMA nodes:\n" + numa_lines(facts);
  out += "\nNetwork devices:\n" + nic_lines(facts);
  const std::string gpu_nics = gpu_nic_lines(live, check);
  if (!gpu_nics.empty()) out += "\nNICs per GPU, closest first (nvidia-smi words; GPUDirect RDMA as NCCL's model allows it):\n" + gpu_nics;

  out += "\nNCCL model of the synthesized topology (linkscope's NCCL 2.28.9 model; --dump-xml writes the XML):\n";
  if (!check.ours) {
    out += "  unavailable: " + check.reason + "\n";
  } else {
    for (const auto& line : check.ours->path_lines) out += "  " + line + "\n";
    if (!check.ours->relation_matrix.empty()) {
      out += "\nThe model in nvidia-smi terms (GPUn = NCCL rank = CUDA ordinal; NCCL cannot tell NODE from PHB):\n";
      out += check.ours->relation_matrix;
    }
  }
  for (const auto& note : check.notes) out += "  note: " + note + "\n";
  const discover::NcclProbeResult* nccl = live.nccl ? &*live.nccl : nullptr;
  if (nccl == nullptr) {
    out += "\nNCCL's own topology: not asked (--no-nccl)\n";
  } else if (nccl->status != "ok") {
    out += fmt::format("\nNCCL's own topology: {}: {}\n", nccl->status, nccl->reason);
  } else {
    out += fmt::format("\nNCCL {} built its own topology over {} GPU(s) (ncclCommInitAll {:.2f} s):\n", nccl->nccl_version,
                       nccl->device_count, nccl->init_seconds);
    if (check.versus_nccl_dump) {
      out += comparison_text(*check.versus_nccl_dump, "synthesized XML vs NCCL's dump (both through linkscope's model)");
    }
    if (check.versus_nccl_log) out += comparison_text(*check.versus_nccl_log, "linkscope's paths vs the paths NCCL printed");
  }
  for (const auto& error : facts.errors) out += "error: " + error + "\n";
  for (const auto& warning : facts.host.warnings) out += "warning: " + warning + "\n";
  return out;
}

}  // namespace linkscope::report
