// The human view of a model: what NCCL's graph says about every GPU pair and GPU/NIC pair.
#include <map>

#include <fmt/format.h>

#include "core/text_table.hpp"
#include "topo/nccl_format.hpp"
#include "topo/smi_matrix.hpp"
#include "topo/topology_model.hpp"

namespace linkscope::topo {

namespace {

std::string summary_line(const TopologyModel& model) {
  const TopoSystem& system = model.system;
  int nets = 0;
  for (int n = 0; n < system.count(kNet); ++n) {
    if (system.index_of(kNet, system.nodes[kNet][n].id) == n) ++nets;
  }
  return fmt::format("NCCL {} topology model of {}: {} GPU{}, {} NIC{}, {} CPU node{}{}\n", modelled_version_label(model.version),
                     model.source_name, system.count(kGpu), system.count(kGpu) == 1 ? "" : "s", nets,
                     nets == 1 ? "" : "s", system.count(kCpu), system.count(kCpu) == 1 ? "" : "s",
                     system.count(kNvs) > 0 ? ", NVSwitch" : "");
}

// What a reader should know about how a pair is routed: the relay GPU, the NVSwitch, a detour.
std::string route(const TopoSystem& system, const Path& path, const std::map<int, std::string>& label_of_index) {
  std::vector<std::string> via;
  const auto hops = system.hops_of(path);
  for (std::size_t i = 0; i + 1 < hops.size(); ++i) {
    const NodeRef node = hops[i].remote;
    if (node.type == kGpu) {
      const auto it = label_of_index.find(node.index);
      via.push_back(it != label_of_index.end() ? it->second : nccl_node_id(system, node));
    } else if (node.type == kNvs) {
      via.push_back("NVSwitch");
    } else if (node.type == kCpu) {
      via.push_back(nccl_node_id(system, node));
    }
  }
  std::string text;
  for (const auto& step : via) text += (text.empty() ? "" : ", ") + step;
  return text;
}

}  // namespace

std::string render_topology_text(const TopologyModel& model) {
  const TopoSystem& system = model.system;
  std::string text = summary_line(model);
  for (const auto& note : model.notes) {
    text += (note.rfind("partial model", 0) == 0 ? "PARTIAL MODEL: " : "note: ") +
            (note.rfind("partial model: ", 0) == 0 ? note.substr(15) : note) + "\n";
  }

  const RelationMatrix matrix = relation_matrix(model);
  std::map<int, std::string> gpu_label;
  for (std::size_t i = 0; i < matrix.labels.size(); ++i) {
    if (matrix.labels[i].rfind("GPU", 0) == 0) gpu_label[model.gpus_by_rank()[i]] = matrix.labels[i];
  }
  std::map<int, std::string> net_label;  // NET index -> NIC label (a duplicate NET id maps to the first)
  for (int n = 0; n < system.count(kNet); ++n) {
    const int first = system.index_of(kNet, system.nodes[kNet][n].id);
    for (std::size_t i = 0; i < matrix.node_ids.size(); ++i) {
      if (matrix.node_ids[i] == nccl_node_id(system, {kNet, first})) net_label[n] = matrix.labels[i];
    }
  }

  if (!matrix.labels.empty()) {
    text += "\nConnections (nvidia-smi topo -m terms, from NCCL's graph):\n";
    text += render_relation_matrix(matrix);
  }

  if (system.count(kGpu) > 1) {
    std::vector<std::vector<std::string>> rows{{"GPU pair", "NCCL path", "hops", "bw GB/s", "P2P", "P2P read", "via"}};
    for (const auto& d : model.p2p) {
      if (d.src_gpu == d.dst_gpu) continue;
      rows.push_back({gpu_label[d.src_gpu] + " -> " + gpu_label[d.dst_gpu], path_type_name(d.path.type),
                      std::to_string(d.path.count), format_bw(d.path.bw), d.check.p2p ? "yes" : "no",
                      d.check.read ? "yes" : "no", route(system, d.path, gpu_label)});
    }
    text += "\nGPU to GPU (NCCL's final paths; P2P as NCCL decides it):\n" + aligned_table(rows, "  ");
  }

  if (!model.gdr.empty()) {
    std::vector<std::vector<std::string>> rows{
        {"GPU -> NIC", "NCCL path", "hops", "bw GB/s", "GDR read", "GDR write", "via", "why"}};
    for (const auto& d : model.gdr) {
      const std::string nic = net_label.count(d.net) ? net_label[d.net] : nccl_node_id(system, {kNet, d.net});
      const bool duplicate = system.index_of(kNet, system.nodes[kNet][d.net].id) != d.net;
      rows.push_back({gpu_label[d.gpu] + " -> " + nic + (duplicate ? " (duplicate NET)" : ""),
                      path_type_name(d.path.type), std::to_string(d.path.count), format_bw(d.path.bw),
                      gdr_mode_name(d.read.mode), gdr_mode_name(d.write.mode), route(system, d.path, gpu_label),
                      d.write.reason});
    }
    text += "\nGPU to NIC (NCCL's final paths; GPUDirect RDMA as NCCL decides it):\n" + aligned_table(rows, "  ");
  }

  text += fmt::format("\nNCCL search start: maxBw {} GB/s, totalBw {} GB/s\n", format_bw(model.max_bw),
                      format_bw(model.total_bw));
  text += fmt::format("P2P level {} ({}), GDR level {} ({})\n", path_type_name(model.p2p_level),
                      model.params.p2p_level ? "environment" : "default", path_type_name(model.gdr_level),
                      model.params.gdr_level ? "environment" : "default");
  if (!model.params.used.empty()) {
    std::string env;
    for (const auto& [name, value] : model.params.used) env += fmt::format("{}{}={}", env.empty() ? "" : " ", name, value);
    text += "environment: " + env + "\n";
  }

  text += "\nLegend:\n"
          "  X = self; NV# = # NVLinks (to the NVSwitch fabric when the GPUs meet there); PIX = one PCIe switch;\n"
          "  PXB = several PCIe switches; PHB = through the CPU's PCIe host bridge (NCCL has one CPU node per NUMA\n"
          "  domain, so nvidia-smi's NODE shows as PHB); SYS = across CPU nodes (QPI/UPI/xGMI).\n"
          "  NCCL path types, best to worst: LOC NVL NVB(NVLink via a GPU) C2C PIX PXB P2C(C2C then PCIe)\n"
          "  PXN(to a NIC via a peer GPU) PHB SYS.\n"
          "  bw: NCCL's search weights in GB/s (the path's narrowest link, from NCCL's constants: PCIe width x\n"
          "  generation, NVLink count x per-link weight by GPU architecture, NIC speed); not measured bandwidth.\n"
          "  P2P assumes NVML reports P2P OK for every GPU pair (there is no NVML offline).\n";
  return text;
}

}  // namespace linkscope::topo
