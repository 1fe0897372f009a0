// The Run document's "model" section (docs/run-schema.md, ### model).
#include <cmath>

#include <fmt/format.h>

#include "topo/nccl_format.hpp"
#include "topo/nccl_numbers.hpp"
#include "topo/smi_matrix.hpp"
#include "topo/topology_model.hpp"

namespace linkscope::topo {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxPathEntriesWithHops = 50000;  // a 72-GPU, 72-NIC host has about 21000
constexpr std::size_t kMaxPathEntries = 250000;

// NCCL's float bandwidths to 4 decimals: 18 x 20.6f is 370.80002 as a float; JSON shows 370.8, and PCIe x1
// Gen1 keeps its exact 0.1875 (NCCL's log rounds it to 0.2).
double json_bw(float value) { return std::round(static_cast<double>(value) * 10000.0) / 10000.0; }

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

void make_strings_valid_utf8(json& value) {
  if (value.is_string()) {
    value = valid_utf8(value.get<std::string>());
  } else if (value.is_structured()) {
    for (auto& child : value) make_strings_valid_utf8(child);
  }
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

json pcie_json(const Node& node) {
  const DictValue code = pcie_speed_code(node.xml.link_speed);
  const CInteger width = c_strtol(node.xml.link_width);
  const int lanes = static_cast<int>(width.value);  // validated to fit an int when the node was built
  json pcie = {{"width", lanes == 0 ? 16 : lanes}, {"bw", json_bw(pcie_bw(lanes, code.value))}};
  pcie["gen"] = code.matched ? json(pcie_generation(code.value)) : json(nullptr);
  if (!code.matched) pcie["gen_as_nccl_reads_it"] = pcie_generation(code.value);
  return pcie;
}

json node_json(const TopoSystem& system, NodeRef ref) {
  const Node& node = system.at(ref);
  json out = {{"id", nccl_node_id(system, ref)}, {"type", node_type_name(ref.type)}, {"index", ref.index}};
  if (node.xml.line > 0) out["xml_line"] = node.xml.line;
  if (node.xml.has_pcie_link) {
    out["busid"] = node.xml.busid;
    out["link_speed"] = node.xml.link_speed;
    out["link_width"] = node.xml.link_width;
    out["pcie"] = pcie_json(node);
  }
  switch (ref.type) {
    case kGpu: {
      out["rank"] = node.rank;
      out["dev"] = node.dev;
      out["sm"] = node.sm;
      out["gdr"] = node.gdr != 0;
      json nvlinks = json::array();
      int total = 0;
      for (const auto& fact : node.nvlinks) {
        json link = {{"count", fact.count}, {"bw", json_bw(fact.bw)}, {"tclass", fact.tclass}, {"xml_line", fact.line}};
        link["remote"] = fact.remote_type >= 0 ? json(nccl_node_id(fact.remote_type, fact.remote_id)) : json(nullptr);
        if (!fact.target.empty()) link["target"] = fact.target;
        nvlinks.push_back(std::move(link));
        total += fact.count;
      }
      out["nvlinks"] = std::move(nvlinks);
      out["nvlink_count"] = total;
      out["nvlink_bw_per_link"] = json_bw(nvlink_bw_per_link(node.sm));
      break;
    }
    case kCpu:
      out["numaid"] = node.numaid;
      out["arch"] = node.arch;
      out["vendor"] = node.vendor;
      out["model"] = node.model;
      out["arch_name"] = arch_name(node.arch);
      out["vendor_name"] = vendor_name(node.vendor) != nullptr ? json(vendor_name(node.vendor)) : json(nullptr);
      out["affinity"] = node.affinity;
      break;
    case kPci: out["device"] = format_hex(node.device); break;
    case kNet:
      out["dev"] = node.net_dev;
      out["name"] = node.net_name;
      out["bw"] = json_bw(node.net_bw);
      out["port"] = node.port;
      out["guid"] = "0x" + format_hex(node.asic);
      out["gdr"] = node.net_gdr != 0;
      out["coll"] = node.coll != 0;
      out["maxconn"] = node.maxconn;
      out["latency"] = json_bw(node.latency);
      break;
    default: break;
  }
  return out;
}

json path_json(const TopoSystem& system, NodeRef from, NodeRef to, const Path& path, bool with_hops) {
  json entry = {{"from", nccl_node_id(system, from)}, {"to", nccl_node_id(system, to)}, {"count", path.count},
                {"bw", json_bw(path.bw)}, {"type", path_type_name(path.type)}};
  if (with_hops) {
    json hops = json::array();
    for (const Link& hop : system.hops_of(path)) hops.push_back(nccl_node_id(system, hop.remote));
    entry["hops"] = std::move(hops);
  }
  return entry;
}

}  // namespace

nlohmann::json model_to_json(const TopologyModel& model) {
  const TopoSystem& system = model.system;
  json out;
  out["nccl_version"] = kNcclModelVersion;
  out["source"] = model.source_name;
  out["partial"] = model.partial;
  out["notes"] = model.notes;
  out["env"] = model.params.used;
  out["max_bw"] = json_bw(model.max_bw);
  out["total_bw"] = json_bw(model.total_bw);
  out["p2p_level"] = path_type_name(model.p2p_level);
  out["gdr_level"] = path_type_name(model.gdr_level);
  out["gpu_slots"] = model.gpu_slots;
  out["nic_slots"] = model.nic_slots;

  json nodes = json::array();
  json links = json::array();
  for (int type = 0; type < kNodeTypeCount; ++type) {
    for (int i = 0; i < system.count(type); ++i) {
      nodes.push_back(node_json(system, {type, i}));
      for (const Link& link : system.nodes[type][i].links) {
        links.push_back({{"from", nccl_node_id(system, {type, i})},
                         {"to", nccl_node_id(system, link.remote)},
                         {"type", link_type_name(link.type)},
                         {"bw", json_bw(link.bw)}});
      }
    }
  }
  out["nodes"] = std::move(nodes);
  out["links"] = std::move(links);

  // The paths NCCL prints: from every GPU and NET to every node with a path array. Huge systems keep the
  // document usable: without hops past kMaxPathEntriesWithHops entries, without paths past kMaxPathEntries.
  std::size_t entries = 0;
  for (const int type : {kGpu, kNet}) {
    for (const Node& node : system.nodes[type]) {
      for (const auto& array : node.paths) entries += array.size();
    }
  }
  const bool with_hops = entries <= kMaxPathEntriesWithHops;
  json paths = json::array();
  if (entries > kMaxPathEntries) {
    out["notes"].push_back(fmt::format("paths omitted: {} entries (more than {}); --format nccl-log prints them",
                                       entries, kMaxPathEntries));
  } else if (!with_hops) {
    out["notes"].push_back(fmt::format("path hops omitted: {} path entries (more than {})", entries,
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
          json entry = path_json(system, from, to, array[m], with_hops);
          if (type == kGpu && target == kGpu) {
            const Path& before = model.gpu_paths_before_rewrites[i][m];
            if (before.type != array[m].type || before.count != array[m].count) {
              entry["before_rewrites"] = {{"count", before.count}, {"bw", json_bw(before.bw)},
                                          {"type", path_type_name(before.type)}};
            }
          }
          paths.push_back(std::move(entry));
        }
      }
    }
  }
  out["paths"] = std::move(paths);

  json p2p = json::array();
  for (const auto& d : model.p2p) {
    p2p.push_back({{"src", nccl_node_id(system, {kGpu, d.src_gpu})},
                   {"dst", nccl_node_id(system, {kGpu, d.dst_gpu})},
                   {"src_rank", d.src_rank},
                   {"dst_rank", d.dst_rank},
                   {"path_type", path_type_name(d.path.type)},
                   {"count", d.path.count},
                   {"bw", json_bw(d.path.bw)},
                   {"p2p", d.check.p2p},
                   {"read", d.check.read},
                   {"intermediate_rank", d.check.intermediate_rank},
                   {"level", path_type_name(d.check.level)},
                   {"reason", p2p_reason(d.check)}});
  }
  out["p2p"] = std::move(p2p);

  json gdr = json::array();
  for (const auto& d : model.gdr) {
    gdr.push_back({{"gpu", nccl_node_id(system, {kGpu, d.gpu})},
                   {"rank", d.rank},
                   {"net", nccl_node_id(system, {kNet, d.net})},
                   {"path_type", path_type_name(d.path.type)},
                   {"count", d.path.count},
                   {"bw", json_bw(d.path.bw)},
                   {"read_mode", gdr_mode_name(d.read.mode)},
                   {"write_mode", gdr_mode_name(d.write.mode)},
                   {"read_reason", d.read.reason},
                   {"write_reason", d.write.reason}});
  }
  out["gdr"] = std::move(gdr);

  const RelationMatrix matrix = relation_matrix(model);
  out["relation_matrix"] = {{"labels", matrix.labels},           {"node_ids", matrix.node_ids},
                            {"rows", matrix.cells},              {"cpu_affinity", matrix.cpu_affinity},
                            {"numa_affinity", matrix.numa_affinity}, {"nic_legend", matrix.nic_legend}};
  out["nccl_info_lines"] = model.info_lines;
  make_strings_valid_utf8(out);
  return out;
}

}  // namespace linkscope::topo
