#include "report/topo_live_text.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/cuda_version.hpp"
#include "core/text.hpp"
#include "core/text_table.hpp"
#include "diagnose/p2p_trail.hpp"
#include "model/link_rate.hpp"
#include "report/cluster_tables.hpp"
#include "topo/nccl_format.hpp"
#include "topo/smi_matrix.hpp"

namespace linkscope::report {

namespace {

using model::Gpu;
using model::GpuPair;
using model::System;

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

// Every GPU NVML or CUDA reports, as discovery listed them: NVML index order, GPUs CUDA alone shows last. The
// model keeps the GPUs CUDA hides under `visibility`.
std::vector<const Gpu*> discovered_gpus(const System& system) {
  std::vector<const Gpu*> gpus;
  for (const auto& gpu : system.gpus) gpus.push_back(&gpu);
  for (const auto& hidden : system.visibility.hidden) {
    if (hidden.gpu) gpus.push_back(&*hidden.gpu);
  }
  std::stable_sort(gpus.begin(), gpus.end(), [](const Gpu* a, const Gpu* b) {
    return a->nvml_index.value_or(INT_MAX) < b->nvml_index.value_or(INT_MAX);
  });
  return gpus;
}

std::vector<const Gpu*> nvml_gpus(const System& system) {
  std::vector<const Gpu*> gpus;
  for (const Gpu* gpu : discovered_gpus(system)) {
    if (gpu->nvml_index) gpus.push_back(gpu);
  }
  return gpus;
}

// The ordered pair by NVML indices, hidden GPUs included.
const GpuPair* nvml_pair(const System& system, int a, int b) {
  for (const auto* list : {&system.pairs, &system.visibility.hidden_pairs}) {
    for (const auto& pair : *list) {
      if (pair.a_nvml_index == a && pair.b_nvml_index == b) return &pair;
    }
  }
  return nullptr;
}

template <typename T>
std::string number(const model::Known<T>& fact) {
  return fact.has() ? fmt::format("{}", *fact) : "?";
}

std::string gib(std::int64_t bytes) { return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1ULL << 30)); }

std::string pcie_text(const Gpu& gpu) {
  const model::Pcie& pcie = gpu.pcie;
  if (pcie.current_gen.has() && pcie.current_width.has()) {
    std::string text = fmt::format("Gen{} x{}", *pcie.current_gen, *pcie.current_width);
    if (pcie.max_gen.has() && pcie.max_width.has()) text += fmt::format(" (max Gen{} x{})", *pcie.max_gen, *pcie.max_width);
    return text;
  }
  // Without NVML: the trained link sysfs shows for the GPU's PCI function.
  const auto generation = pcie.current_speed ? model::pcie_generation_of_speed(*pcie.current_speed) : std::nullopt;
  if (generation && pcie.sysfs_current_width) {
    const auto max_generation = pcie.max_speed ? model::pcie_generation_of_speed(*pcie.max_speed) : std::nullopt;
    return fmt::format("Gen{} x{} (max Gen{} x{})", *generation, *pcie.sysfs_current_width, max_generation.value_or(0),
                       pcie.sysfs_max_width.value_or(0));
  }
  return "?";
}

std::string gpu_table(const System& system) {
  std::vector<std::vector<std::string>> rows = {{"CUDA", "NVML", "BDF", "NAME", "UUID", "SM", "MEMORY", "NUMA", "CPUS", "PCIE",
                                                 "MIG", "PERSIST", "SM MHZ", "THROTTLE", "ECC UNC", "UTIL", "PROCS"}};
  for (const Gpu* g : discovered_gpus(system)) {
    const Gpu& gpu = *g;
    std::vector<std::string> row;
    row.push_back(gpu.cuda_ordinal ? std::to_string(*gpu.cuda_ordinal) : "-");
    row.push_back(gpu.nvml_index ? std::to_string(*gpu.nvml_index) : "-");
    row.push_back(gpu.pci_bdf);
    row.push_back(gpu.name);
    row.push_back(gpu.uuid);
    row.push_back(gpu.sm ? std::to_string(*gpu.sm) : "?");
    row.push_back(gpu.memory_bytes ? gib(*gpu.memory_bytes) : "?");
    row.push_back(gpu.numa_node ? std::to_string(*gpu.numa_node) : "-");
    row.push_back(gpu.cpu_affinity.value_or("?"));
    std::string pcie = pcie_text(gpu);
    if (gpu.pcie.sysfs_current_width && gpu.pcie.sysfs_max_width && *gpu.pcie.sysfs_current_width < *gpu.pcie.sysfs_max_width) {
      pcie += " DEGRADED";
    }
    row.push_back(pcie);
    if (!gpu.nvml_reason.empty()) {  // no NVML facts for this GPU
      row.insert(row.end(), {"?", "?", "?", "?", "?", "?", "?"});
      rows.push_back(row);
      continue;
    }
    row.push_back(gpu.mig_mode ? (*gpu.mig_mode == "enabled" ? "enabled" : "off") : "?");
    row.push_back(gpu.persistence_mode ? (*gpu.persistence_mode ? "on" : "off") : "?");
    row.push_back(fmt::format("{}/{}", number(gpu.clocks.sm_mhz), number(gpu.clocks.sm_max_mhz)));
    if (gpu.throttle_reasons) {
      row.push_back(gpu.throttle_reasons->empty() ? "none" : join(*gpu.throttle_reasons, ","));
    } else {
      row.push_back("?");
    }
    row.push_back(gpu.ecc.enabled.has() && !*gpu.ecc.enabled
                      ? "ecc off"
                      : fmt::format("{}/{}", number(gpu.ecc.volatile_uncorrected), number(gpu.ecc.aggregate_uncorrected)));
    row.push_back(gpu.utilization.gpu_percent ? fmt::format("{}%", *gpu.utilization.gpu_percent) : "?");
    row.push_back(gpu.processes ? std::to_string(gpu.processes->size()) : "?");
    rows.push_back(row);
  }
  return aligned_table(rows, "  ");
}

std::string nvlink_remote(const System& system, const model::Nvlink& link) {
  std::string remote = link.remote_type.value_or("unknown");
  if (remote == "gpu" && link.remote_bdf) {
    const Gpu* peer = nullptr;
    for (const Gpu* other : discovered_gpus(system)) {
      if (other->pci_bdf == *link.remote_bdf) peer = other;
    }
    return peer != nullptr && peer->nvml_index ? fmt::format("GPU{}", *peer->nvml_index) : "GPU " + *link.remote_bdf;
  }
  return remote == "nvswitch" ? "NVSwitch" : remote;
}

std::string nvlink_summary(const System& system) {
  std::string out;
  for (const Gpu* gpu : discovered_gpus(system)) {
    if (!gpu->nvml_reason.empty()) continue;
    const std::string label = gpu->nvml_index ? fmt::format("GPU{}", *gpu->nvml_index) : gpu->pci_bdf;
    const auto& links = gpu->nvlink_list();
    if (links.empty()) {
      out += fmt::format("  {}: no NVLink ({})\n", label, gpu->nvlinks.reason);
      continue;
    }
    int active = 0, unknown_speed = 0;
    double total_gbps = 0;
    std::set<long long> speeds;  // MB/s, as NVML reports them
    std::set<int> versions;
    std::map<std::string, int> remotes;
    std::int64_t replay = 0, recovery = 0, crc = 0;
    bool errors_known = true;
    for (const auto& link : links) {
      if (!link.active.value_or(false)) continue;
      ++active;
      if (link.speed_gbps) {
        speeds.insert(std::llround(*link.speed_gbps * 1000.0));
        total_gbps += *link.speed_gbps;
      } else {
        ++unknown_speed;
      }
      if (link.version) versions.insert(*link.version);
      ++remotes[nvlink_remote(system, link)];
      if (link.errors.replay && link.errors.recovery && link.errors.crc_flit) {
        replay += *link.errors.replay;
        recovery += *link.errors.recovery;
        crc += *link.errors.crc_flit;
      } else {
        errors_known = false;
      }
    }
    std::vector<std::string> speed_text, remote_text, version_text;
    for (const long long s : speeds) speed_text.push_back(fmt::format("{:.3f}", static_cast<double>(s) / 1000.0));
    for (const auto& [name, count] : remotes) remote_text.push_back(fmt::format("{} x{}", name, count));
    for (const int v : versions) version_text.push_back(std::to_string(v));
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

std::string combined_p2p_matrix(const System& system) {
  const std::vector<const Gpu*> gpus = nvml_gpus(system);
  if (gpus.empty()) return "";
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {""};
  for (const Gpu* gpu : gpus) header.push_back(fmt::format("GPU{}", *gpu->nvml_index));
  rows.push_back(header);
  for (const Gpu* a : gpus) {
    std::vector<std::string> row = {fmt::format("GPU{}", *a->nvml_index)};
    for (const Gpu* b : gpus) {
      if (a == b) {
        row.push_back("X");
        continue;
      }
      const GpuPair* pair = nvml_pair(system, *a->nvml_index, *b->nvml_index);
      if (pair == nullptr || !pair->nvml_p2p) {
        row.push_back("?");
        continue;
      }
      const auto& p2p = *pair->nvml_p2p;
      const std::vector<std::string> codes = {p2p.read.value_or("?"), p2p.write.value_or("?"), p2p.nvlink.value_or("?"),
                                              p2p.atomics.value_or("?")};
      const bool all_ok = std::all_of(codes.begin(), codes.end(), [](const std::string& c) { return c == "OK"; });
      row.push_back(all_ok ? "OK" : join(codes, "/"));
    }
    rows.push_back(row);
  }
  return aligned_table(rows, "  ");
}

std::string cuda_peer_matrix(const System& system) {
  std::vector<const Gpu*> gpus;
  for (const auto& gpu : system.gpus) {
    if (gpu.cuda_ordinal) gpus.push_back(&gpu);
  }
  std::sort(gpus.begin(), gpus.end(), [](const Gpu* a, const Gpu* b) { return *a->cuda_ordinal < *b->cuda_ordinal; });
  if (gpus.size() < 2) return "";
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {""};
  for (const Gpu* gpu : gpus) header.push_back(fmt::format("CUDA{}", *gpu->cuda_ordinal));
  rows.push_back(header);
  for (const Gpu* a : gpus) {
    std::vector<std::string> row = {fmt::format("CUDA{}", *a->cuda_ordinal)};
    for (const Gpu* b : gpus) {
      if (a == b) {
        row.push_back("X");
        continue;
      }
      const GpuPair* found = nullptr;
      for (const auto& pair : system.pairs) {
        if (pair.a == a->cuda_ordinal && pair.b == b->cuda_ordinal) found = &pair;
      }
      if (found == nullptr || !found->cuda_peer_access) {
        row.push_back("?");
      } else if (!*found->cuda_peer_access) {
        row.push_back("no");
      } else {
        row.push_back(found->cuda_performance_rank ? fmt::format("yes (rank {})", *found->cuda_performance_rank) : "yes");
      }
    }
    rows.push_back(row);
  }
  return aligned_table(rows, "  ");
}

std::string nic_lines(const System& system) {
  std::string out;
  for (const auto& nic : system.nics) {
    std::string line = fmt::format("  {:<10} {:<10}", nic.name, nic.kind);
    line += nic.pci_bdf ? fmt::format(" {} ({})", *nic.pci_bdf, nic.bus) : fmt::format(" {}", nic.bus.empty() ? "no device" : nic.bus);
    if (nic.numa_node && *nic.numa_node >= 0) line += fmt::format(" NUMA {}", *nic.numa_node);
    for (const auto& port : nic.ports) {
      line += fmt::format(" port {} {}", port.port, port.state);
      if (port.rate_gbps) line += fmt::format(" {:g} Gb/s", *port.rate_gbps);
      if (!port.link_layer.empty()) line += " " + port.link_layer;
    }
    if (nic.kind != "infiniband") {
      if (nic.operstate) line += " " + *nic.operstate;
      if (nic.speed_mbps) line += fmt::format(" {:g} Gb/s", static_cast<double>(*nic.speed_mbps) / 1000.0);
    }
    out += line + "\n";
  }
  return out.empty() ? "  none\n" : out;
}

// Each CUDA GPU's NICs, closest first, as `system.gpu_nics` records them.
std::string gpu_nic_lines(const System& system) {
  std::string out;
  for (const auto& gpu : system.gpu_nics) {
    if (gpu.nics.empty()) continue;
    std::vector<std::string> parts;
    for (const auto& nic : gpu.nics) {
      std::string part = nic.name + " " + nic.relation;
      if (nic.nccl_net) {
        part += " (NCCL NET";
        if (nic.gdr_read && nic.gdr_write) part += ", GPUDirect RDMA read " + *nic.gdr_read + " / write " + *nic.gdr_write;
        part += ")";
      }
      parts.push_back(part);
    }
    out += fmt::format("  CUDA{}{}: {}\n", gpu.cuda_ordinal.value_or(-1),
                       gpu.nvml_index ? fmt::format(" (GPU{})", *gpu.nvml_index) : "", join(parts, ", "));
  }
  return out;
}

std::string numa_lines(const System& system) {
  std::string out;
  for (const auto& node : system.numa_nodes) {
    out += fmt::format("  node {}: CPUs {}", node.id, node.cpus);
    if (node.memory_bytes) out += ", " + gib(*node.memory_bytes);
    out += "\n";
  }
  return out.empty() ? "  none listed\n" : out;
}

std::string version_text(const std::optional<int>& version) {
  return version ? cuda_version_text(*version) : "?";
}

std::string comparison_text(const model::PathComparison& comparison, const std::string& what) {
  if (comparison.identical) return fmt::format("  {}: identical ({} path lines)\n", what, comparison.compared_lines);
  std::string out = fmt::format("  {}: {} difference(s){}\n", what, comparison.differences.size(),
                                comparison.equivalent ? ", all explained by NCCL's version" : "");
  for (const auto& d : comparison.differences) {
    const std::string where = d.target.empty() ? d.node : d.node + " -> " + d.target;
    out += fmt::format("    {}: linkscope {}, NCCL {}\n", where, d.linkscope.value_or("(none)"), d.nccl.value_or("(none)"));
    out += fmt::format("      {}{}\n", d.expected ? "expected: " : "", d.explanation);
  }
  return out;
}

// The paths of the model as NCCL prints them ("GPU/0-60 :GPU/0-60 (0/5000.0/LOC) NET/0-0 (3/1.2/PHB) "), one line
// per source node in the model's order, capped at NCCL's line length.
std::vector<std::string> nccl_path_lines(const model::TopologyView& view) {
  std::vector<std::string> lines;
  std::vector<std::string> sources;
  std::map<std::string, std::string> line_of;
  std::set<std::string> capped;
  for (const auto& path : view.paths) {
    if (line_of.count(path.from) == 0) {
      sources.push_back(path.from);
      line_of[path.from] = path.from + " :";
    }
    if (capped.count(path.from) != 0) continue;
    std::string& line = line_of[path.from];
    line += fmt::format("{} ({}/{}/{}) ", path.to, path.count, topo::format_bw(static_cast<float>(path.bw)), path.type);
    if (line.size() > topo::kNcclLineBytes) {
      line = topo::cap_nccl_line(std::move(line));
      capped.insert(path.from);
    }
  }
  for (const auto& source : sources) lines.push_back(line_of[source]);
  return lines;
}

std::string model_section(const model::Run& run) {
  const std::string& modelled = run.topology.nccl_version_modelled;
  std::string out = fmt::format("\nNCCL model of the synthesized topology (linkscope's model of NCCL {}; --dump-xml "
                                "writes the XML):\n",
                                modelled.empty() ? std::string("(no version)") : modelled);
  // No model: none was made, or NCCL would refuse the topology (the section then records only that).
  if (!run.topology.present || run.topology.nodes.empty()) {
    std::string reason;
    for (const auto& error : run.errors) {
      if (error.where == "model") reason = error.message;
    }
    out += "  unavailable: " + reason + "\n";
  } else {
    for (const auto& line : nccl_path_lines(run.topology)) out += "  " + line + "\n";
    const std::string relations =
        run.topology.relation_matrix ? topo::render_relation_matrix(*run.topology.relation_matrix) : std::string();
    if (!relations.empty()) {
      out += "\nThe model in nvidia-smi terms (GPUn = NCCL rank = CUDA ordinal; NCCL cannot tell NODE from PHB):\n";
      out += relations;
    }
  }
  if (run.system.synthesized_topology) {
    for (const auto& note : run.system.synthesized_topology->notes) out += "  note: " + note + "\n";
  }
  return out;
}

std::string nccl_section(const System& system) {
  const model::NcclTopologyProbe* nccl = system.nccl_topology ? &*system.nccl_topology : nullptr;
  if (nccl == nullptr || nccl->status == "skipped") return "\nNCCL's own topology: not asked (--no-nccl)\n";
  if (nccl->status != "ok") return fmt::format("\nNCCL's own topology: {}: {}\n", nccl->status, nccl->reason.value_or(""));
  std::string out = fmt::format("\nNCCL {} built its own topology over {} GPU(s) (ncclCommInitAll {:.2f} s):\n",
                                nccl->nccl_version.value_or(""), nccl->device_count.value_or(0),
                                nccl->init_seconds.value_or(0));
  if (nccl->versus_nccl_dump) {
    out += comparison_text(*nccl->versus_nccl_dump, "synthesized XML vs NCCL's dump (both through linkscope's model)");
  }
  if (nccl->versus_nccl_log) out += comparison_text(*nccl->versus_nccl_log, "linkscope's paths vs the paths NCCL printed");
  return out;
}

}  // namespace

std::string render_smi_matrix(const System& system) {
  if (!system.smi_matrix || system.smi_matrix->labels.empty()) return "";
  const model::SmiMatrix& matrix = *system.smi_matrix;
  std::vector<std::string> header = {""};
  header.insert(header.end(), matrix.labels.begin(), matrix.labels.end());
  header.insert(header.end(), {"CPU Affinity", "NUMA Affinity", "GPU NUMA ID"});
  std::string out = join(header, "\t") + "\n";
  const std::size_t gpu_rows = matrix.cpu_affinity.size();
  for (std::size_t r = 0; r < matrix.labels.size() && r < matrix.cells.size(); ++r) {
    std::vector<std::string> cells = {matrix.labels[r]};
    for (const auto& cell : matrix.cells[r]) cells.push_back(cell == "X" ? " X " : cell);
    if (r < gpu_rows) {
      cells.insert(cells.end(), {matrix.cpu_affinity[r], r < matrix.numa_affinity.size() ? matrix.numa_affinity[r] : "N/A",
                                 "", r < matrix.gpu_numa_id.size() ? matrix.gpu_numa_id[r] : "N/A"});
    } else {
      cells.insert(cells.end(), {"", "", "", ""});
    }
    out += join(cells, "\t") + "\n";
  }
  out += "\n";
  out += kSmiLegend;
  if (!matrix.nic_legend.empty()) {
    out += "\nNIC Legend:\n\n";
    for (const auto& line : matrix.nic_legend) out += "  " + line + "\n";
  }
  return out;
}

std::string render_p2p_matrix(const System& system, const std::string& capability) {
  const std::vector<const Gpu*> gpus = nvml_gpus(system);
  if (gpus.empty()) return "";
  std::string out = " \t";
  for (const Gpu* gpu : gpus) out += fmt::format("GPU{}\t", *gpu->nvml_index);
  out += "\n";
  for (const Gpu* a : gpus) {
    out += fmt::format(" GPU{}\t", *a->nvml_index);
    for (const Gpu* b : gpus) {
      std::string code = "X";
      if (a != b) {
        const GpuPair* pair = nvml_pair(system, *a->nvml_index, *b->nvml_index);
        const model::Known<std::string>* status = nullptr;
        if (pair != nullptr && pair->nvml_p2p) {
          if (capability == "read") status = &pair->nvml_p2p->read;
          if (capability == "write") status = &pair->nvml_p2p->write;
          if (capability == "nvlink") status = &pair->nvml_p2p->nvlink;
          if (capability == "atomics") status = &pair->nvml_p2p->atomics;
        }
        code = status != nullptr && status->has() ? **status : "?";
      }
      out += code + "\t";
    }
    out += "\n";
  }
  return out;
}

std::string render_sysfs_only_text(const System& system) {
  std::string out = fmt::format("linkscope topo: sysfs only{}\n",
                                system.sysfs_root == "/" ? "" : fmt::format(" (root {})", system.sysfs_root));
  out += fmt::format("NVIDIA driver: unavailable: {}\n", system.driver.reason);
  out += "\nPCI display devices (class 0x03):\n";
  std::vector<std::vector<std::string>> rows = {{"BDF", "CLASS", "VENDOR", "DEVICE", "NUMA", "CPUS", "LINK (current / max)"}};
  auto width = [](const std::optional<int>& w) { return w ? std::to_string(*w) : std::string("?"); };
  for (const auto& device : system.pci_display_devices) {
    std::string link = "?";
    if (device.current_link_speed && device.max_link_speed) {
      link = fmt::format("{} x{} / {} x{}", *device.current_link_speed, width(device.current_width),
                         *device.max_link_speed, width(device.max_width));
    }
    rows.push_back({device.pci_bdf, device.class_id.value_or("?"), device.vendor.value_or("?"), device.device.value_or("?"),
                    device.numa_node && *device.numa_node >= 0 ? std::to_string(*device.numa_node) : "-",
                    device.local_cpulist.value_or("?"), link});
  }
  out += rows.size() > 1 ? aligned_table(rows, "  ") : "  none\n";
  const std::string matrix = render_smi_matrix(system);
  if (!matrix.empty()) out += "\nPCIe relations from sysfs (no NVLink information without the driver):\n" + matrix;
  out += "\nNUMA nodes:\n" + numa_lines(system);
  out += "\nNetwork devices:\n" + nic_lines(system);
  for (const auto& warning : system.warnings) out += "warning: " + warning + "\n";
  return out;
}

// The GPU pairs where a P2P gate closed or detoured, one trail a line (diagnose/p2p_trail.hpp); "" when P2P is on
// for every pair.
namespace {

std::string p2p_trail_lines(const model::Run& run) {
  std::string out;
  for (const auto& trail : diagnose::p2p_trails(diagnose::Context(run))) {
    if (trail.first_stop() != nullptr) out += "  " + diagnose::p2p_trail_line(trail) + "\n";
  }
  return out;
}

}  // namespace

std::string render_topo_live_text(const model::Run& run) {
  const System& system = run.system;
  std::string out = fmt::format(
      "linkscope topo: driver {} (CUDA {}), CUDA runtime {}: {} GPU(s) in NVML, {} visible to CUDA\n",
      system.driver.version.value_or("?"), version_text(system.driver.cuda_driver_version),
      version_text(system.cuda.runtime_version), system.visibility.nvml_gpu_count.value_or(0), system.cuda.device_count);
  if (!system.cuda.available) out += fmt::format("CUDA: unavailable: {}\n", system.cuda.reason);
  out += "\nTopology (as nvidia-smi topo -m; GPUn = NVML index):\n";
  out += render_smi_matrix(system);
  out += "\nGPUs:\n" + gpu_table(system);
  for (const auto& hidden : system.visibility.hidden) {
    out += fmt::format("  NVML GPU {} ({}, {}) is not visible to CUDA: {}\n", hidden.nvml_index.value_or(-1),
                       hidden.pci_bdf, hidden.uuid, hidden.reason);
  }
  for (const auto& note : system.visibility.notes) out += "  note: " + note + "\n";
  const std::string nvlinks = nvlink_summary(system);
  if (!nvlinks.empty()) out += "\nNVLink (as nvidia-smi nvlink -s, per direction):\n" + nvlinks;
  const std::string p2p = combined_p2p_matrix(system);
  if (!p2p.empty()) {
    out += "\nNVML P2P status (read/write/nvlink/atomics; OK = all four; as nvidia-smi topo -p2p r|w|n|a):\n" + p2p;
  }
  const std::string peers = cuda_peer_matrix(system);
  if (!peers.empty()) out += "\nCUDA peer access (cudaDeviceCanAccessPeer, performance rank; by CUDA ordinal):\n" + peers;
  const std::string trails = p2p_trail_lines(run);
  if (!trails.empty()) {
    out += "\nWhy P2P is off or detoured (gates in order: user variables, path vs P2P level, NVML P2P status, "
           "ACS/IOMMU, CUDA peer access; the first that closed is named):\n" + trails;
  }
  out += "\nNUMA nodes:\n" + numa_lines(system);
  out += "\nNetwork devices:\n" + nic_lines(system);
  const std::string gpu_nics = gpu_nic_lines(system);
  if (!gpu_nics.empty()) out += "\nNICs per GPU, closest first (nvidia-smi words; GPUDirect RDMA as NCCL's model allows it):\n" + gpu_nics;
  out += model_section(run);
  out += nccl_section(system);
  for (const auto& error : system.errors) out += "error: " + error + "\n";
  for (const auto& warning : system.warnings) out += "warning: " + warning + "\n";
  return out;
}

std::string render_topo_text(const model::Run& run) {
  // A system section discovery filled (it always records the sysfs root it read).
  const bool discovered = !run.system.sysfs_root.empty();
  const std::string detail = !discovered ? std::string()
                             : run.system.driver.available ? render_topo_live_text(run)
                                                           : render_sysfs_only_text(run.system);
  if (!has_hosts(run)) return detail;
  return mpi_job_line(run, "topo") + "\n" + render_hosts_text(run) +
         fmt::format("\nThis host in detail: {} (rank 0)\n", run.config.host) + detail;
}

}  // namespace linkscope::report
