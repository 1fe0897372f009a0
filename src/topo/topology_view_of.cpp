// NCCL's topology model as the Run's typed `model` section (model::TopologyView; docs/run-schema.md, ### model).

#include <fmt/format.h>

#include "topo/json_number.hpp"
#include "topo/nccl_format.hpp"
#include "topo/nccl_numbers.hpp"
#include "topo/smi_matrix.hpp"
#include "topo/topology_model.hpp"

namespace linkscope::topo {

namespace {


constexpr std::size_t kMaxPathEntriesWithHops = 50000;  // a 72-GPU, 72-NIC host has about 21000
constexpr std::size_t kMaxPathEntries = 250000;

// Attribute values are bytes as the file has them; JSON needs UTF-8. Invalid sequences become U+FFFD.
std::string valid_utf8(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    std::size_t length = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    bool ok = length > 0 && i + length <= text.size();
    for (std::size_t k = 1; ok && k < length; ++k) ok = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
    if (ok && length == 2) ok = c >= 0xc2;  // no overlong forms
    if (ok && length == 3) {
      const auto c1 = static_cast<unsigned char>(text[i + 1]);
      ok = !(c == 0xe0 && c1 < 0xa0) && !(c == 0xed && c1 >= 0xa0);  // no overlong forms, no surrogates
    }
    if (ok && length == 4) {
      const auto c1 = static_cast<unsigned char>(text[i + 1]);
      ok = c <= 0xf4 && !(c == 0xf0 && c1 < 0x90) && !(c == 0xf4 && c1 >= 0x90);
    }
    if (ok) {
      out.append(text, i, length);
      i += length;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}


const char* arch_name(int arch) {
  switch (arch) {
    case kArchX86: return "x86_64";
    case kArchPower: return "ppc64";
    case kArchArm: return "arm64";
    default: return "unknown";
  }
}

const char* vendor_name(int vendor) {
  switch (vendor) {
    case kVendorIntel: return "GenuineIntel";
    case kVendorAmd: return "AuthenticAMD";
    case kVendorZhaoxin: return "Zhaoxin";
    default: return nullptr;
  }
}

model::TopoPcie pcie_of(const Node& node) {
  const DictValue code = pcie_speed_code(node.xml.link_speed);
  const CInteger width = c_strtol(node.xml.link_width);
  const int lanes = static_cast<int>(width.value);  // validated to fit an int when the node was built
  model::TopoPcie pcie;
  pcie.width = lanes == 0 ? 16 : lanes;
  pcie.bw = json_bw(pcie_bw(lanes, code.value));
  if (code.matched) {
    pcie.gen = pcie_generation(code.value);
  } else {
    pcie.gen_as_nccl_reads_it = pcie_generation(code.value);
  }
  return pcie;
}

model::TopoNode node_of(const TopoSystem& system, NodeRef ref) {
  const Node& node = system.at(ref);
  model::TopoNode out;
  out.id = nccl_node_id(system, ref);
  out.type = node_type_name(ref.type);
  out.index = ref.index;
  if (node.xml.line > 0) out.xml_line = node.xml.line;
  if (node.xml.has_pcie_link) {
    out.busid = valid_utf8(node.xml.busid);
    out.link_speed = valid_utf8(node.xml.link_speed);
    out.link_width = valid_utf8(node.xml.link_width);
    out.pcie = pcie_of(node);
  }
  switch (ref.type) {
    case kGpu: {
      out.rank = node.rank;
      out.dev = node.dev;
      out.sm = node.sm;
      out.gdr = node.gdr != 0;
      int total = 0;
      for (const auto& fact : node.nvlinks) {
        model::TopoNvlinkFact link;
        link.count = fact.count;
        link.bw = json_bw(fact.bw);
        link.tclass = valid_utf8(fact.tclass);
        link.xml_line = fact.line;
        if (fact.remote_type >= 0) link.remote = nccl_node_id(fact.remote_type, fact.remote_id);
        if (!fact.target.empty()) link.target = valid_utf8(fact.target);
        out.nvlinks.push_back(std::move(link));
        total += fact.count;
      }
      out.nvlink_count = total;
      out.nvlink_bw_per_link = json_bw(nvlink_bw_per_link(node.sm));
      break;
    }
    case kCpu:
      out.numaid = node.numaid;
      out.arch = node.arch;
      out.vendor = node.vendor;
      out.cpu_model = node.model;
      out.arch_name = arch_name(node.arch);
      if (vendor_name(node.vendor) != nullptr) out.vendor_name = vendor_name(node.vendor);
      out.affinity = valid_utf8(node.affinity);
      break;
    case kPci:
    case kDev: out.device = format_hex(node.device); break;
    case kNet:
      out.dev = node.net_dev;
      out.name = valid_utf8(node.net_name);
      out.bw = json_bw(node.net_bw);
      out.port = node.port;
      out.guid = "0x" + format_hex(node.asic);
      out.gdr = node.net_gdr != 0;
      out.coll = node.coll != 0;
      out.maxconn = node.maxconn;
      out.latency = json_bw(node.latency);
      break;
    default: break;
  }
  return out;
}

model::TopoPath path_of(const TopoSystem& system, NodeRef from, NodeRef to, const Path& path, bool with_hops) {
  model::TopoPath entry;
  entry.from = nccl_node_id(system, from);
  entry.to = nccl_node_id(system, to);
  entry.count = path.count;
  entry.bw = json_bw(path.bw);
  entry.type = path_type_name(path.type);
  if (with_hops) {
    for (const Link& hop : system.hops_of(path)) entry.hops.push_back(nccl_node_id(system, hop.remote));
  }
  return entry;
}

}  // namespace

model::TopologyView topology_view(const TopologyModel& model) {
  const TopoSystem& system = model.system;
  model::TopologyView out;
  out.present = true;
  out.nccl_version = model.version.requested.text();
  out.nccl_version_modelled = model.version.modelled.text();
  out.nccl_version_from = model.version.requested_from;
  out.nccl_version_note = model.version.note;
  out.source = valid_utf8(model.source_name);
  out.partial = model.partial;
  for (const auto& note : model.notes) out.notes.push_back(valid_utf8(note));
  for (const auto& [name, value] : model.params.used) out.env[name] = valid_utf8(value);
  out.max_bw = json_bw(model.max_bw);
  out.total_bw = json_bw(model.total_bw);
  out.p2p_level = path_type_name(model.p2p_level);
  out.gdr_level = path_type_name(model.gdr_level);
  out.gpu_slots = model.gpu_slots;
  out.nic_slots = model.nic_slots;

  for (int type = 0; type < kNodeTypeCount; ++type) {
    for (int i = 0; i < system.count(type); ++i) {
      out.nodes.push_back(node_of(system, {type, i}));
      for (const Link& link : system.nodes[type][i].links) {
        out.links.push_back({nccl_node_id(system, {type, i}), nccl_node_id(system, link.remote),
                             link_type_name(link.type), json_bw(link.bw)});
      }
    }
  }

  // The paths NCCL prints: from every GPU and NET to every node with a path array. Huge systems keep the
  // document usable: without hops past kMaxPathEntriesWithHops entries, without paths past kMaxPathEntries.
  std::size_t entries = 0;
  for (const int type : {kGpu, kNet}) {
    for (const Node& node : system.nodes[type]) {
      for (const auto& array : node.paths) entries += array.size();
    }
  }
  const bool with_hops = entries <= kMaxPathEntriesWithHops;
  if (entries > kMaxPathEntries) {
    out.notes.push_back(fmt::format("paths omitted: {} entries (more than {}); --format nccl-log prints them", entries,
                                    kMaxPathEntries));
  } else if (!with_hops) {
    out.notes.push_back(fmt::format("path hops omitted: {} path entries (more than {})", entries,
                                    kMaxPathEntriesWithHops));
  }
  for (const int type : {kGpu, kNet}) {
    if (entries > kMaxPathEntries) break;
    for (int i = 0; i < system.count(type); ++i) {
      const NodeRef from{type, i};
      for (int target = 0; target < kNodeTypeCount; ++target) {
        const auto& array = system.at(from).paths[target];
        for (std::size_t m = 0; m < array.size(); ++m) {
          const NodeRef to{target, static_cast<int>(m)};
          model::TopoPath entry = path_of(system, from, to, array[m], with_hops);
          if (type == kGpu && target == kGpu) {
            const Path& before = model.gpu_paths_before_rewrites[i][m];
            if (before.type != array[m].type || before.count != array[m].count) {
              entry.before_rewrites = model::TopoPathSummary{before.count, json_bw(before.bw), path_type_name(before.type)};
            }
          }
          out.paths.push_back(std::move(entry));
        }
      }
    }
  }

  for (const auto& d : model.p2p) {
    out.p2p.push_back({nccl_node_id(system, {kGpu, d.src_gpu}), nccl_node_id(system, {kGpu, d.dst_gpu}), d.src_rank,
                       d.dst_rank, path_type_name(d.path.type), d.path.count, json_bw(d.path.bw), d.check.p2p,
                       d.check.read, d.check.intermediate_rank, path_type_name(d.check.level), p2p_reason(d.check)});
  }
  for (const auto& d : model.gdr) {
    out.gdr.push_back({nccl_node_id(system, {kGpu, d.gpu}), d.rank, nccl_node_id(system, {kNet, d.net}),
                       path_type_name(d.path.type), d.path.count, json_bw(d.path.bw), gdr_mode_name(d.read.mode),
                       gdr_mode_name(d.write.mode), d.read.reason, d.write.reason});
  }
  RelationMatrix matrix = relation_matrix(model);
  for (auto* list : {&matrix.labels, &matrix.node_ids, &matrix.cpu_affinity, &matrix.numa_affinity, &matrix.nic_legend}) {
    for (auto& text : *list) text = valid_utf8(text);
  }
  for (auto& row : matrix.cells) {
    for (auto& cell : row) cell = valid_utf8(cell);
  }
  out.relation_matrix = std::move(matrix);
  for (const auto& line : model.info_lines) out.nccl_info_lines.push_back(valid_utf8(line));
  return out;
}

}  // namespace linkscope::topo
