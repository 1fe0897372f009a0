#include "model/topology_view.hpp"

namespace linkscope::model {

using nlohmann::json;

namespace {

json node_json(const TopoNode& node) {
  json out = {{"id", node.id}, {"type", node.type}, {"index", node.index}};
  if (node.xml_line) out["xml_line"] = *node.xml_line;
  if (node.busid) {
    out["busid"] = *node.busid;
    out["link_speed"] = node.link_speed.value_or("");
    out["link_width"] = node.link_width.value_or("");
    if (node.pcie) {
      json pcie = {{"width", node.pcie->width}, {"bw", node.pcie->bw}, {"gen", optional_json(node.pcie->gen)}};
      if (node.pcie->gen_as_nccl_reads_it) pcie["gen_as_nccl_reads_it"] = *node.pcie->gen_as_nccl_reads_it;
      out["pcie"] = pcie;
    }
  }
  if (node.type == "GPU") {
    out["rank"] = node.rank.value_or(-1);
    out["dev"] = node.dev.value_or(-1);
    out["sm"] = node.sm.value_or(0);
    out["gdr"] = node.gdr.value_or(false);
    json nvlinks = json::array();
    for (const auto& fact : node.nvlinks) {
      json link = {{"count", fact.count}, {"bw", fact.bw}, {"tclass", fact.tclass}, {"xml_line", fact.xml_line},
                   {"remote", optional_json(fact.remote)}};
      if (fact.target) link["target"] = *fact.target;
      nvlinks.push_back(std::move(link));
    }
    out["nvlinks"] = std::move(nvlinks);
    out["nvlink_count"] = node.nvlink_count.value_or(0);
    out["nvlink_bw_per_link"] = node.nvlink_bw_per_link.value_or(0.0);
  } else if (node.type == "CPU") {
    out["numaid"] = node.numaid.value_or(-1);
    out["arch"] = node.arch.value_or(-1);
    out["vendor"] = node.vendor.value_or(-1);
    out["model"] = node.cpu_model.value_or(-1);
    out["arch_name"] = node.arch_name.value_or("unknown");
    out["vendor_name"] = optional_json(node.vendor_name);
    out["affinity"] = node.affinity.value_or("");
  } else if (node.type == "PCI") {
    out["device"] = node.device.value_or("");
  } else if (node.type == "NET") {
    out["dev"] = node.dev.value_or(-1);
    out["name"] = node.name.value_or("");
    out["bw"] = node.bw.value_or(0.0);
    out["port"] = node.port.value_or(0);
    out["guid"] = node.guid.value_or("");
    out["gdr"] = node.gdr.value_or(false);
    out["coll"] = node.coll.value_or(false);
    out["maxconn"] = node.maxconn.value_or(0);
    out["latency"] = node.latency.value_or(0.0);
  }
  return with_extras(std::move(out), node.extra);
}

TopoNode node_from(const JsonReader& r) {
  TopoNode node;
  node.id = r.string_or("id");
  node.type = r.string_or("type");
  node.index = r.small_int("index").value_or(0);
  node.xml_line = r.small_int("xml_line");
  node.busid = r.string("busid");
  node.link_speed = r.string("link_speed");
  node.link_width = r.string("link_width");
  if (r.has("pcie")) {
    const JsonReader p = r.object("pcie");
    node.pcie = TopoPcie{p.small_int("width").value_or(16), p.number("bw").value_or(0), p.small_int("gen"),
                         p.small_int("gen_as_nccl_reads_it")};
  }
  node.rank = r.small_int("rank");
  node.dev = r.small_int("dev");
  node.sm = r.small_int("sm");
  node.gdr = r.boolean("gdr");
  for (const auto& l : r.array("nvlinks")) {
    node.nvlinks.push_back({l.string("remote"), l.small_int("count").value_or(0), l.number("bw").value_or(0),
                            l.string("target"), l.string_or("tclass"), l.small_int("xml_line").value_or(0)});
  }
  node.nvlink_count = r.small_int("nvlink_count");
  node.nvlink_bw_per_link = r.number("nvlink_bw_per_link");
  node.numaid = r.small_int("numaid");
  node.arch = r.small_int("arch");
  node.vendor = r.small_int("vendor");
  node.cpu_model = r.small_int("model");
  node.arch_name = r.string("arch_name");
  node.vendor_name = r.string("vendor_name");
  node.affinity = r.string("affinity");
  node.device = r.string("device");
  node.name = r.string("name");
  node.guid = r.string("guid");
  node.bw = r.number("bw");
  node.latency = r.number("latency");
  node.port = r.small_int("port");
  node.maxconn = r.small_int("maxconn");
  node.coll = r.boolean("coll");
  node.extra = r.extras();
  return node;
}

}  // namespace

const TopoNode* TopologyView::node(const std::string& id) const {
  for (const auto& n : nodes) {
    if (n.id == id) return &n;
  }
  return nullptr;
}

std::vector<const TopoNode*> TopologyView::gpus() const {
  std::vector<const TopoNode*> out;
  for (const auto& n : nodes) {
    if (n.type == "GPU") out.push_back(&n);
  }
  return out;
}

const TopoNode* TopologyView::gpu_by_rank(int rank) const {
  for (const auto& n : nodes) {
    if (n.type == "GPU" && n.rank && *n.rank == rank) return &n;
  }
  return nullptr;
}

json to_json(const TopologyView& view) {
  json out;
  out["nccl_version"] = view.nccl_version;
  out["nccl_version_modelled"] = view.nccl_version_modelled;
  if (!view.nccl_version_from.empty()) out["nccl_version_from"] = view.nccl_version_from;
  if (!view.nccl_version_note.empty()) out["nccl_version_note"] = view.nccl_version_note;
  out["source"] = view.source;
  if (view.refused) out["refused"] = *view.refused;
  out["partial"] = view.partial;
  out["notes"] = view.notes;
  out["env"] = view.env;
  out["max_bw"] = view.max_bw;
  out["total_bw"] = view.total_bw;
  out["p2p_level"] = view.p2p_level;
  out["gdr_level"] = view.gdr_level;
  out["gpu_slots"] = view.gpu_slots;
  out["nic_slots"] = view.nic_slots;
  json nodes = json::array();
  for (const auto& node : view.nodes) nodes.push_back(node_json(node));
  out["nodes"] = std::move(nodes);
  json links = json::array();
  for (const auto& l : view.links) links.push_back({{"from", l.from}, {"to", l.to}, {"type", l.type}, {"bw", l.bw}});
  out["links"] = std::move(links);
  json paths = json::array();
  for (const auto& p : view.paths) {
    json entry = {{"from", p.from}, {"to", p.to}, {"count", p.count}, {"bw", p.bw}, {"type", p.type}};
    if (!p.hops.empty()) entry["hops"] = p.hops;
    if (p.before_rewrites) {
      entry["before_rewrites"] = {{"count", p.before_rewrites->count},
                                  {"bw", p.before_rewrites->bw},
                                  {"type", p.before_rewrites->type}};
    }
    paths.push_back(std::move(entry));
  }
  out["paths"] = std::move(paths);
  json p2p = json::array();
  for (const auto& d : view.p2p) {
    p2p.push_back({{"src", d.src},
                   {"dst", d.dst},
                   {"src_rank", d.src_rank},
                   {"dst_rank", d.dst_rank},
                   {"path_type", d.path_type},
                   {"count", d.count},
                   {"bw", d.bw},
                   {"p2p", d.p2p},
                   {"read", d.read},
                   {"intermediate_rank", d.intermediate_rank},
                   {"level", d.level},
                   {"reason", d.reason}});
  }
  out["p2p"] = std::move(p2p);
  json gdr = json::array();
  for (const auto& d : view.gdr) {
    gdr.push_back({{"gpu", d.gpu},
                   {"rank", d.rank},
                   {"net", d.net},
                   {"path_type", d.path_type},
                   {"count", d.count},
                   {"bw", d.bw},
                   {"read_mode", d.read_mode},
                   {"write_mode", d.write_mode},
                   {"read_reason", d.read_reason},
                   {"write_reason", d.write_reason}});
  }
  out["gdr"] = std::move(gdr);
  if (view.relation_matrix) {
    const RelationMatrix& m = *view.relation_matrix;
    out["relation_matrix"] = {{"labels", m.labels},           {"node_ids", m.node_ids},
                              {"rows", m.cells},               {"cpu_affinity", m.cpu_affinity},
                              {"numa_affinity", m.numa_affinity}, {"nic_legend", m.nic_legend}};
  }
  out["nccl_info_lines"] = view.nccl_info_lines;
  put_prediction(out, view.prediction);
  return with_extras(std::move(out), view.extra);
}

TopologyView topology_view_from_json(const JsonReader& r) {
  TopologyView view;
  view.present = r.is_object() && !r.json().empty();
  if (!view.present) return view;
  view.nccl_version = r.string_or("nccl_version");
  // Runs saved before versions were modelled name only the one version they modelled.
  view.nccl_version_modelled = r.string_or("nccl_version_modelled", view.nccl_version);
  view.nccl_version_from = r.string_or("nccl_version_from");
  view.nccl_version_note = r.string_or("nccl_version_note");
  view.source = r.string_or("source");
  view.refused = r.string("refused");
  view.partial = r.boolean("partial").value_or(false);
  view.notes = r.strings("notes");
  view.env = r.string_map("env");
  view.max_bw = r.number("max_bw").value_or(0);
  view.total_bw = r.number("total_bw").value_or(0);
  view.p2p_level = r.string_or("p2p_level");
  view.gdr_level = r.string_or("gdr_level");
  view.gpu_slots = r.small_int("gpu_slots").value_or(0);
  view.nic_slots = r.small_int("nic_slots").value_or(0);
  for (const auto& node : r.array("nodes")) view.nodes.push_back(node_from(node));
  for (const auto& l : r.array("links")) {
    view.links.push_back({l.string_or("from"), l.string_or("to"), l.string_or("type"), l.number("bw").value_or(0)});
  }
  for (const auto& p : r.array("paths")) {
    TopoPath path{p.string_or("from"), p.string_or("to"), p.small_int("count").value_or(0),
                  p.number("bw").value_or(0), p.string_or("type"), p.strings("hops"), std::nullopt};
    if (p.has("before_rewrites")) {
      const JsonReader b = p.object("before_rewrites");
      path.before_rewrites = TopoPathSummary{b.small_int("count").value_or(0), b.number("bw").value_or(0),
                                             b.string_or("type")};
    }
    view.paths.push_back(std::move(path));
  }
  for (const auto& d : r.array("p2p")) {
    view.p2p.push_back({d.string_or("src"), d.string_or("dst"), d.small_int("src_rank").value_or(-1),
                        d.small_int("dst_rank").value_or(-1), d.string_or("path_type"),
                        d.small_int("count").value_or(0), d.number("bw").value_or(0),
                        d.boolean("p2p").value_or(false), d.boolean("read").value_or(false),
                        d.small_int("intermediate_rank").value_or(-1), d.string_or("level"), d.string_or("reason")});
  }
  for (const auto& d : r.array("gdr")) {
    view.gdr.push_back({d.string_or("gpu"), d.small_int("rank").value_or(-1), d.string_or("net"),
                        d.string_or("path_type"), d.small_int("count").value_or(0), d.number("bw").value_or(0),
                        d.string_or("read_mode"), d.string_or("write_mode"), d.string_or("read_reason"),
                        d.string_or("write_reason")});
  }
  if (r.has("relation_matrix")) {
    const JsonReader m = r.object("relation_matrix");
    view.relation_matrix = RelationMatrix{m.strings("labels"),        m.strings("node_ids"),
                                          m.string_rows("rows"),       m.strings("cpu_affinity"),
                                          m.strings("numa_affinity"), m.strings("nic_legend")};
  }
  view.nccl_info_lines = r.strings("nccl_info_lines");
  view.prediction = prediction_from_json(r);
  view.extra = r.extras();
  return view;
}

}  // namespace linkscope::model
