#include "topo/nccl_log_printer.hpp"

#include <fmt/format.h>

#include "topo/nccl_format.hpp"

namespace linkscope::topo {

namespace {

std::string node_header(const TopoSystem& system, NodeRef ref) {
  const Node& node = system.at(ref);
  const std::string id = nccl_node_id(system, ref);
  switch (ref.type) {
    case kGpu: return fmt::format("{} ({})", id, node.rank);
    case kCpu: return fmt::format("{} ({}/{}/{})", id, node.arch, node.vendor, node.model);
    case kPci:
    case kDev: return fmt::format("{} ({})", id, format_hex(node.device));
    default: return id;
  }
}

// ncclTopoPrintRec: only PCI links recurse, and never back up the link they came down.
void show(const TopoSystem& system, NodeRef ref, NodeRef previous, const std::string& lead,
          std::vector<std::string>& out) {
  out.push_back(cap_nccl_line(lead + node_header(system, ref)));
  const std::string pad(lead.size(), ' ');
  for (const Link& link : system.at(ref).links) {
    const std::string remote = nccl_node_id(system, link.remote);
    if (link.type == kLinkLoc) {
      out.push_back(cap_nccl_line(fmt::format("{}+ {}[{}] - {}", pad, link_type_name(link.type), format_bw(link.bw),
                                              remote)));
      continue;
    }
    if (link.type == kLinkPci && link.remote == previous) continue;
    const std::string next_lead = fmt::format("{}+ {}[{}] - ", pad, link_type_name(link.type), format_bw(link.bw));
    if (link.type == kLinkPci) {
      show(system, link.remote, ref, next_lead, out);
    } else if (link.remote.type == kNet) {
      const Node& net = system.at(link.remote);
      out.push_back(cap_nccl_line(fmt::format("{}{} ({}/{}/{}/{})", next_lead, remote, net.coll, format_hex(net.asic),
                                              net.port, format_f6(net.net_bw))));
    } else {
      out.push_back(cap_nccl_line(next_lead + remote));
    }
  }
}

std::string path_line(const TopoSystem& system, NodeRef ref) {
  std::string line = nccl_node_id(system, ref) + " :";
  const Node& node = system.at(ref);
  for (int type = 0; type < kNodeTypeCount; ++type) {
    const auto& array = node.paths[type];
    for (std::size_t m = 0; m < array.size(); ++m) {
      const Path& path = array[m];
      line += fmt::format("{} ({}/{}/{}) ", nccl_node_id(system, {type, static_cast<int>(m)}), path.count,
                          format_bw(path.bw), path_type_name(path.type));
      if (line.size() > kNcclLineBytes) return cap_nccl_line(std::move(line));
    }
  }
  return line;
}

}  // namespace

std::vector<std::string> nccl_system_block_lines(const TopologyModel& model) {
  std::vector<std::string> out;
  out.push_back(fmt::format("=== System : maxBw {} totalBw {} ===", format_bw(model.max_bw),
                            format_bw(model.total_bw)));
  for (int c = 0; c < model.system.count(kCpu); ++c) show(model.system, {kCpu, c}, {}, "", out);
  out.emplace_back(42, '=');
  return out;
}

std::vector<std::string> nccl_path_lines(const TopologyModel& model) {
  std::vector<std::string> out;
  for (const int type : {kGpu, kNet}) {
    for (int i = 0; i < model.system.count(type); ++i) out.push_back(path_line(model.system, {type, i}));
  }
  return out;
}

std::vector<std::string> decision_lines(const TopologyModel& model) {
  const TopoSystem& system = model.system;
  std::vector<std::string> out;
  for (const auto& d : model.p2p) {
    out.push_back(fmt::format("P2P {} -> {} : path {} count {} bw {} : p2p {} read {}",
                              nccl_node_id(system, {kGpu, d.src_gpu}), nccl_node_id(system, {kGpu, d.dst_gpu}),
                              path_type_name(d.path.type), d.path.count, format_bw(d.path.bw), d.check.p2p ? 1 : 0,
                              d.check.read ? 1 : 0));
  }
  for (const auto& d : model.gdr) {
    out.push_back(fmt::format("GDR {} -> {} : path {} count {} bw {} : read {} write {}",
                              nccl_node_id(system, {kGpu, d.gpu}), nccl_node_id(system, {kNet, d.net}),
                              path_type_name(d.path.type), d.path.count, format_bw(d.path.bw),
                              d.read.mode != kGdrDisabled ? 1 : 0, d.write.mode != kGdrDisabled ? 1 : 0));
  }
  return out;
}

std::string render_nccl_log(const TopologyModel& model) {
  std::string text;
  const auto append = [&text](const std::vector<std::string>& lines) {
    for (const auto& line : lines) {
      text += line;
      text += '\n';
    }
  };
  append(model.info_lines);
  append(nccl_system_block_lines(model));
  append(nccl_path_lines(model));
  append(decision_lines(model));
  return text;
}

}  // namespace linkscope::topo
