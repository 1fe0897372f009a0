#include "topo/smi_matrix.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "topo/nccl_format.hpp"

namespace linkscope::topo {

namespace {

// Parent of each node in the PCI tree, found the way NCCL prints it: down PCI links from every CPU.
std::map<std::pair<int, int>, NodeRef> pci_parents(const TopoSystem& system) {
  std::map<std::pair<int, int>, NodeRef> parent;
  for (int c = 0; c < system.count(kCpu); ++c) {
    std::vector<NodeRef> stack{{kCpu, c}};
    while (!stack.empty()) {
      const NodeRef node = stack.back();
      stack.pop_back();
      for (const Link& link : system.at(node).links) {
        const auto key = std::make_pair(link.remote.type, link.remote.index);
        if (link.type != kLinkPci || link.remote.type == kCpu || parent.count(key)) continue;
        parent[key] = node;
        stack.push_back(link.remote);
      }
    }
  }
  return parent;
}

std::vector<NodeRef> ancestors(const std::map<std::pair<int, int>, NodeRef>& parent, NodeRef node) {
  std::vector<NodeRef> chain;
  for (auto it = parent.find({node.type, node.index}); it != parent.end() && chain.size() < 256;
       it = parent.find({it->second.type, it->second.index})) {
    chain.push_back(it->second);
  }
  return chain;
}

// nvidia-smi's PCIe levels from the nearest common ancestor: the same switch right above both is PIX, a
// deeper common switch PXB, the same CPU (NUMA node) PHB, different CPUs SYS.
std::string pcie_relation(const std::vector<NodeRef>& a, const std::vector<NodeRef>& b) {
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto at = std::find(b.begin(), b.end(), a[i]);
    if (at == b.end()) continue;
    if (a[i].type == kCpu) return "PHB";
    return i == 0 && at == b.begin() ? "PIX" : "PXB";
  }
  return "SYS";
}

int nvlink_count(const Node& gpu, int remote_type, int64_t remote_id) {
  int count = 0;
  for (const auto& fact : gpu.nvlinks) {
    if (fact.remote_type == remote_type && (remote_type == kNvs || fact.remote_id == remote_id)) count += fact.count;
  }
  return count;
}

}  // namespace

std::string cpu_list_from_mask(const std::string& mask) {
  std::string hex;
  for (const char c : mask) {
    if (c != ',') hex.push_back(c);
  }
  std::vector<int> cpus;
  for (std::size_t i = 0; i < hex.size(); ++i) {
    const char c = hex[hex.size() - 1 - i];
    const int digit = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                                      : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 0;
    for (int bit = 0; bit < 4; ++bit) {
      if (digit & (1 << bit)) cpus.push_back(static_cast<int>(i * 4) + bit);
    }
  }
  if (cpus.empty()) return "N/A";
  std::string list;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!list.empty()) list += ',';
    list += i == j ? std::to_string(cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return list;
}

RelationMatrix relation_matrix(const TopologyModel& model) {
  const TopoSystem& system = model.system;
  const auto parent = pci_parents(system);
  RelationMatrix matrix;
  std::vector<NodeRef> devices;
  const std::vector<int> gpus = model.gpus_by_rank();
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    devices.push_back({kGpu, gpus[i]});
    matrix.labels.push_back(fmt::format("GPU{}", i));
  }
  // A NET listed twice (quirk Q1) is one device.
  int nic_number = 0;
  for (int n = 0; n < system.count(kNet); ++n) {
    if (system.index_of(kNet, system.nodes[kNet][n].id) != n) continue;
    devices.push_back({kNet, n});
    matrix.labels.push_back(fmt::format("NIC{}", nic_number));
    const Node& net = system.nodes[kNet][n];
    matrix.nic_legend.push_back(fmt::format("NIC{}: {} ({})", nic_number, net.net_name.empty() ? "?" : net.net_name,
                                            nccl_node_id(system, {kNet, n})));
    ++nic_number;
  }

  // A NET hangs below its NIC; its PCIe position is the NIC's. Since NCCL 2.30 a GPU's is its DEV's.
  const auto pci_position = [&](NodeRef device) {
    if (device.type == kGpu) {
      const NodeRef physical = system.device_of(device.index);
      return physical.valid() ? physical : device;
    }
    if (device.type != kNet) return device;
    for (const Link& link : system.at(device).links) {
      if (link.type == kLinkNet) return link.remote;
    }
    return device;
  };
  std::vector<std::vector<NodeRef>> chains;
  for (const NodeRef device : devices) chains.push_back(ancestors(parent, pci_position(device)));

  for (std::size_t r = 0; r < devices.size(); ++r) {
    matrix.node_ids.push_back(nccl_node_id(system, devices[r]));
    std::vector<std::string> row;
    for (std::size_t c = 0; c < devices.size(); ++c) {
      if (r == c) {
        row.emplace_back("X");
        continue;
      }
      const NodeRef a = devices[r];
      const NodeRef b = devices[c];
      if (a.type == kGpu && b.type == kGpu) {
        const Path& path = model.gpu_paths_before_rewrites[a.index][b.index];
        if (path.type == kPathNvl) {
          const Node& gpu = system.at(a);
          const bool via_switch = path.count == 2 && path.hops >= 0 && system.hop_cells[path.hops].link.remote.type == kNvs;
          const int links = via_switch ? nvlink_count(gpu, kNvs, 0) : nvlink_count(gpu, kGpu, system.at(b).id);
          if (links > 0) {
            row.push_back(fmt::format("NV{}", links));
            continue;
          }
        }
      }
      row.push_back(pcie_relation(chains[r], chains[c]));
    }
    matrix.cells.push_back(std::move(row));
    if (devices[r].type == kGpu && !chains[r].empty() && chains[r].back().type == kCpu) {
      const Node& cpu = system.at(chains[r].back());
      matrix.cpu_affinity.push_back(cpu_list_from_mask(cpu.affinity));
      matrix.numa_affinity.push_back(cpu.numaid < 0 ? "N/A" : std::to_string(cpu.numaid));
    } else {
      matrix.cpu_affinity.emplace_back(devices[r].type == kGpu ? "N/A" : "");
      matrix.numa_affinity.emplace_back(devices[r].type == kGpu ? "N/A" : "");
    }
  }
  return matrix;
}

std::string render_relation_matrix(const RelationMatrix& matrix) {
  std::size_t width = 4;
  for (const auto& label : matrix.labels) width = std::max(width, label.size());
  for (const auto& row : matrix.cells) {
    for (const auto& cell : row) width = std::max(width, cell.size());
  }
  width += 2;
  std::string text = fmt::format("{:<{}}", "", width);
  for (const auto& label : matrix.labels) text += fmt::format("{:<{}}", label, width);
  text += "CPU Affinity  NUMA Affinity\n";
  for (std::size_t r = 0; r < matrix.cells.size(); ++r) {
    text += fmt::format("{:<{}}", matrix.labels[r], width);
    for (const auto& cell : matrix.cells[r]) text += fmt::format("{:<{}}", cell == "X" ? " X" : cell, width);
    text += fmt::format("{:<14}{}", matrix.cpu_affinity[r], matrix.numa_affinity[r]);
    while (!text.empty() && text.back() == ' ') text.pop_back();
    text += '\n';
  }
  if (!matrix.nic_legend.empty()) {
    text += "\nNIC Legend:\n";
    for (const auto& line : matrix.nic_legend) text += "  " + line + "\n";
  }
  return text;
}

}  // namespace linkscope::topo
