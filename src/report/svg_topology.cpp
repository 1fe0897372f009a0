#include "report/svg_topology.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "core/text.hpp"
#include "diagnose/evidence.hpp"
#include "report/svg_canvas.hpp"

namespace linkscope::report {

namespace {

constexpr double kBoxWidth = 104, kBoxHeight = 46, kColumn = 122, kRow = 78, kMargin = 24;

struct Box {
  std::string id, type, line1, line2;
  double x = 0, y = 0;  // centre
};

struct Edge {
  std::string from, to, type, label;
};

std::string fill_for(const std::string& type) {
  if (type == "GPU") return "#dbe9f6";
  if (type == "HIDDEN") return "#eeeeee";
  if (type == "NVS") return "#e6dcf2";
  if (type == "CPU") return "#e8e8e8";
  if (type == "PCI") return "#fff2cc";
  if (type == "NIC" || type == "NET") return "#dff0d8";
  return "#f4f4f4";
}

std::string stroke_for(const std::string& type) {
  if (type == "NVL") return "#6a3d9a";
  if (type == "SYS") return "#b15928";
  if (type == "NET") return "#2e7d32";
  if (type == "C2C") return "#0072B2";
  return "#666666";
}

// "GPU/0-83000" -> "0000:83:00.0": NCCL's node ids carry the bus id, for GPUs and PCI switches alike.
std::string bdf_of(const model::TopoNode& node) { return diagnose::ModelGpu{&node}.pci_bdf(); }

std::string draw(std::vector<Box>& boxes, const std::vector<Edge>& edges, const std::string& caption,
                 std::optional<std::pair<double, double>> nvswitch_span, const std::string& nvswitch_label) {
  double max_x = 0, max_y = 0;
  for (const auto& b : boxes) {
    max_x = std::max(max_x, b.x + kBoxWidth / 2);
    max_y = std::max(max_y, b.y + kBoxHeight / 2);
  }
  // Wide enough for the caption (about 6 px per character at 11 px).
  const double width = std::max({420.0, max_x + kMargin, 2 * kMargin + 6.0 * static_cast<double>(caption.size())});
  const double height = max_y + 44;
  SvgCanvas svg(width, height, "topology", "Topology");
  svg.rect(0, 0, width, height, "#ffffff");
  auto find = [&](const std::string& id) -> const Box* {
    for (const auto& b : boxes) {
      if (b.id == id) return &b;
    }
    return nullptr;
  };
  const double nvs_y = kMargin + 16;
  if (nvswitch_span) {
    svg.rect(nvswitch_span->first - kBoxWidth / 2, nvs_y - 14, nvswitch_span->second - nvswitch_span->first + kBoxWidth,
             28, fill_for("NVS"), "#6a3d9a", 6);
    svg.text((nvswitch_span->first + nvswitch_span->second) / 2, nvs_y + 5, nvswitch_label, 12, "middle", "#222", "bold");
  }
  for (const auto& e : edges) {
    const Box* a = find(e.from);
    const Box* b = find(e.to);
    if (e.to == "NVS" || (b != nullptr && b->type == "NVS")) {
      if (a == nullptr || !nvswitch_span) continue;
      svg.line(a->x, a->y - kBoxHeight / 2, a->x, nvs_y + 14, stroke_for("NVL"), 3);
      svg.text(a->x + 5, (a->y - kBoxHeight / 2 + nvs_y + 14) / 2 + 4, e.label, 10, "start", "#6a3d9a");
      continue;
    }
    if (a == nullptr || b == nullptr) continue;
    if (e.type == "NVL" && a->type == "GPU" && b->type == "GPU") {
      // Direct NVLink: an arc above the two GPUs.
      const double top = a->y - kBoxHeight / 2 - 12 - std::abs(a->x - b->x) / kColumn * 10;
      svg.element("path", {{"d", fmt::format("M {} {} Q {} {} {} {}", svg_number(a->x), svg_number(a->y - kBoxHeight / 2),
                                             svg_number((a->x + b->x) / 2), svg_number(top - 10),
                                             svg_number(b->x), svg_number(b->y - kBoxHeight / 2))},
                           {"fill", "none"}, {"stroke", stroke_for("NVL")}, {"stroke-width", "2.5"}});
      svg.text((a->x + b->x) / 2, top, e.label, 10, "middle", "#6a3d9a");
      continue;
    }
    const double y1 = a->y < b->y ? a->y + kBoxHeight / 2 : a->y - kBoxHeight / 2;
    const double y2 = a->y < b->y ? b->y - kBoxHeight / 2 : b->y + kBoxHeight / 2;
    if (a->y == b->y) {
      const double x1 = a->x < b->x ? a->x + kBoxWidth / 2 : a->x - kBoxWidth / 2;
      const double x2 = a->x < b->x ? b->x - kBoxWidth / 2 : b->x + kBoxWidth / 2;
      svg.line(x1, a->y, x2, b->y, stroke_for(e.type), 2, e.type == "SYS" ? "5 3" : "");
      svg.text((x1 + x2) / 2, a->y - 6, e.label, 10, "middle", "#555");
    } else {
      svg.line(a->x, y1, b->x, y2, stroke_for(e.type), e.type == "PCI" ? 1.5 : 2);
      // Label near the upper end, where lines into one CPU have not converged yet.
      const double upper_x = a->y < b->y ? a->x : b->x, upper_y = std::min(y1, y2);
      const double lower_x = a->y < b->y ? b->x : a->x;
      const double label_x = upper_x + (lower_x - upper_x) * 0.22 + 4;
      if (!e.label.empty()) svg.text(label_x, upper_y + 14, e.label, 10, "start", "#555");
    }
  }
  for (const auto& b : boxes) {
    if (b.type == "NVS") continue;
    svg.rect(b.x - kBoxWidth / 2, b.y - kBoxHeight / 2, kBoxWidth, kBoxHeight, fill_for(b.type), "#555", 5);
    svg.text(b.x, b.y - 3, b.line1, 12, "middle", "#111", "bold");
    if (!b.line2.empty()) svg.text(b.x, b.y + 13, b.line2, 10, "middle", "#333");
  }
  svg.text(kMargin, height - 12, caption, 11, "start", "#555");
  return svg.finish();
}

std::string from_model(const model::TopologyView& model) {
  std::map<std::string, std::string> types;
  std::map<std::string, const model::TopoNode*> nodes;
  std::vector<std::string> cpus;
  for (const auto& node : model.nodes) {
    types[node.id] = node.type;
    nodes[node.id] = &node;
    if (node.type == "CPU") cpus.push_back(node.id);
  }
  // Adjacency (both directions are listed in the model; keep the first weight per pair and type).
  std::map<std::string, std::vector<std::pair<std::string, const model::TopoLink*>>> adjacent;
  for (const auto& link : model.links) adjacent[link.from].push_back({link.to, &link});
  // Tree of PCI children under each CPU, depth-first in document order.
  std::map<std::string, int> depth;
  std::map<std::string, std::string> parent;
  std::vector<std::vector<std::string>> leaves_per_cpu;
  std::set<std::string> placed(cpus.begin(), cpus.end());
  int max_depth = 0;
  for (const auto& cpu : cpus) {
    std::vector<std::string> leaves;
    std::vector<std::pair<std::string, int>> stack{{cpu, 0}};
    while (!stack.empty()) {
      const auto [id, d] = stack.back();
      stack.pop_back();
      bool has_child = false;
      std::vector<std::pair<std::string, int>> children;
      for (const auto& [to, link] : adjacent[id]) {
        const std::string to_type = types[to];
        if (link->type != "PCI" || placed.count(to) != 0 || to_type == "CPU") continue;
        placed.insert(to);
        parent[to] = id;
        depth[to] = d + 1;
        children.push_back({to, d + 1});
        has_child = true;
      }
      for (auto it = children.rbegin(); it != children.rend(); ++it) stack.push_back(*it);
      if (id != cpu && (!has_child || types[id] == "GPU" || types[id] == "NIC")) leaves.push_back(id);
      if (id != cpu && types[id] == "PCI") max_depth = std::max(max_depth, d);
    }
    leaves_per_cpu.push_back(leaves);
  }
  // GPUs not reached over PCI (e.g. C2C only) still get a column under the first CPU.
  for (const auto& [id, type] : types) {
    if (type == "GPU" && placed.count(id) == 0) {
      if (leaves_per_cpu.empty()) leaves_per_cpu.push_back({});
      leaves_per_cpu.front().push_back(id);
      placed.insert(id);
    }
  }
  bool any_gpu = false;
  for (const auto& [id, type] : types) any_gpu = any_gpu || type == "GPU";
  if (!any_gpu) return "";

  const bool has_nvs = std::any_of(types.begin(), types.end(), [](const auto& t) { return t.second == "NVS"; });
  const double top_row = kMargin + (has_nvs ? 100 : 64);
  const double cpu_row = top_row + kRow * (max_depth + 1);
  std::vector<Box> boxes;
  std::map<std::string, double> column_x;
  double next_x = kMargin + kBoxWidth / 2;
  for (std::size_t c = 0; c < cpus.size() || c < leaves_per_cpu.size(); ++c) {
    const auto& leaves = c < leaves_per_cpu.size() ? leaves_per_cpu[c] : std::vector<std::string>{};
    double first = next_x, last = next_x;
    for (std::size_t i = 0; i < leaves.size(); ++i) {
      column_x[leaves[i]] = next_x;
      if (i == 0) first = next_x;
      last = next_x;
      next_x += kColumn;
      // A network device gets its own column right after its NIC.
      for (const auto& [to, link] : adjacent[leaves[i]]) {
        if (types[to] == "NET" && column_x.count(to) == 0) {
          column_x[to] = next_x;
          last = next_x;
          next_x += kColumn;
        }
      }
    }
    if (leaves.empty()) next_x += kColumn;
    if (c < cpus.size()) column_x[cpus[c]] = leaves.empty() ? next_x - kColumn : (first + last) / 2;
    next_x += kColumn * 0.25;
  }
  // Internal PCI nodes sit above the mean of their children.
  for (int d = max_depth; d >= 1; --d) {
    for (const auto& [id, node_depth] : depth) {
      if (node_depth != d || types[id] != "PCI" || column_x.count(id) != 0) continue;
      double sum = 0;
      int count = 0;
      for (const auto& [child, p] : parent) {
        if (p == id && column_x.count(child) != 0) {
          sum += column_x[child];
          ++count;
        }
      }
      column_x[id] = count > 0 ? sum / count : next_x;
    }
  }
  for (const auto& [id, x] : column_x) {
    Box box;
    box.id = id;
    box.type = types[id];
    box.x = x;
    static const model::TopoNode kUnlisted;  // a link's far end the model lists no node for
    const auto listed = nodes.find(id);
    const model::TopoNode& node = listed != nodes.end() ? *listed->second : kUnlisted;
    if (box.type == "GPU") {
      box.y = top_row;
      box.line1 = node.rank ? fmt::format("GPU{}", *node.rank) : "GPU";
      box.line2 = bdf_of(node);
    } else if (box.type == "CPU") {
      box.y = cpu_row;
      box.line1 = "CPU";
      box.line2 = id;
    } else if (box.type == "NET") {
      box.y = top_row;
      box.line1 = "NET " + node.name.value_or("");
      box.line2 = id;
    } else {
      box.y = cpu_row - kRow * (depth.count(id) != 0 ? depth[id] : 1);
      if (box.type == "NIC") box.y = std::min(box.y, top_row + kRow);
      if (box.type == "PCI") {
        box.y = cpu_row - kRow * depth[id];
        box.line1 = "PCIe switch";
      } else {
        box.line1 = box.type;
      }
      box.line2 = box.type == "PCI" ? bdf_of(node) : id;
    }
    boxes.push_back(box);
  }
  // Edges: one per unordered pair, labelled with NCCL's weight.
  std::vector<Edge> edges;
  std::set<std::pair<std::string, std::string>> seen;
  std::optional<std::pair<double, double>> span;
  std::string nvs_label = "NVSwitch";
  for (const auto& link : model.links) {
    const std::string& from = link.from;
    const std::string& to = link.to;
    const std::string& type = link.type;
    const auto key = std::minmax(from, to);
    if (!seen.insert({key.first, key.second}).second) continue;
    const std::string label = format_number(link.bw);
    if (types[to] == "NVS" || types[from] == "NVS") {
      const std::string gpu = types[to] == "NVS" ? from : to;
      if (column_x.count(gpu) == 0) continue;
      const double x = column_x[gpu];
      span = span ? std::make_pair(std::min(span->first, x), std::max(span->second, x)) : std::make_pair(x, x);
      edges.push_back({gpu, "NVS", "NVL", "NVL " + label});
      continue;
    }
    edges.push_back({from, to, type, type + " " + label});
  }
  if (span) boxes.push_back({"NVS", "NVS", "", "", 0, 0});
  return draw(boxes, edges,
              "From NCCL's topology model; link labels are NCCL's weights in GB/s (search weights, not measurements).",
              span, nvs_label);
}

std::string from_system(const diagnose::Evidence& evidence) {
  if (evidence.gpus.empty()) return "";
  std::vector<Box> boxes;
  std::vector<Edge> edges;
  const bool nvswitch = std::any_of(evidence.gpus.begin(), evidence.gpus.end(),
                                    [](const model::Gpu* g) { return g->links_to_nvswitch(); });
  const double top_row = kMargin + (nvswitch ? 100 : 70);
  const double cpu_row = top_row + kRow * 1.6;
  double x = kMargin + kBoxWidth / 2;
  std::optional<std::pair<double, double>> span;
  for (const model::Gpu* g : evidence.gpus) {
    const model::Gpu& gpu = *g;
    // A GPU hidden from CUDA (CUDA_VISIBLE_DEVICES, MIG) is drawn greyed out.
    Box box{gpu.cuda_ordinal ? fmt::format("gpu{}", *gpu.cuda_ordinal) : "nvml" + gpu.pci_bdf,
            gpu.cuda_ordinal ? "GPU" : "HIDDEN", gpu.cuda_ordinal ? gpu.label() : "hidden GPU", gpu.pci_bdf, x,
            top_row};
    boxes.push_back(box);
    if (gpu.links_to_nvswitch()) {
      span = span ? std::make_pair(std::min(span->first, x), std::max(span->second, x)) : std::make_pair(x, x);
      edges.push_back({box.id, "NVS", "NVL", fmt::format("{} links", gpu.active_nvlinks())});
    }
    x += kColumn;
  }
  if (!nvswitch) {
    for (const auto& pair : evidence.pairs) {
      if (pair.has_nvlink()) edges.push_back({fmt::format("gpu{}", pair.a), fmt::format("gpu{}", pair.b), "NVL", pair.relation});
    }
  }
  const int nodes = std::max(1, static_cast<int>(evidence.system.numa_nodes.size()));
  for (int n = 0; n < nodes; ++n) {
    const double cx = kMargin + kBoxWidth / 2 + (x - kColumn - kMargin - kBoxWidth / 2) * (nodes == 1 ? 0.5 : double(n) / (nodes - 1));
    boxes.push_back({fmt::format("numa{}", n), "CPU", fmt::format("NUMA node {}", n), "", cx, cpu_row});
  }
  for (const model::Gpu* g : evidence.gpus) {
    const model::Gpu& gpu = *g;
    const std::string id = gpu.cuda_ordinal ? fmt::format("gpu{}", *gpu.cuda_ordinal) : "nvml" + gpu.pci_bdf;
    const int node = gpu.numa_node && *gpu.numa_node >= 0 && *gpu.numa_node < nodes ? *gpu.numa_node : 0;
    edges.push_back({id, fmt::format("numa{}", node), "PCI",
                     gpu.pcie.current_gen ? fmt::format("Gen{} x{}", *gpu.pcie.current_gen, gpu.pcie.current_width.value_or(0))
                                          : std::string("PCIe")});
  }
  if (span) boxes.push_back({"NVS", "NVS", "", "", 0, 0});
  return draw(boxes, edges, "From the hardware facts (NVML); grey: a GPU hidden from CUDA.", span, "NVSwitch");
}

}  // namespace

std::string render_topology_svg(const model::Run& run) {
  if (!run.topology.nodes.empty()) {
    const std::string drawing = from_model(run.topology);
    if (!drawing.empty()) return drawing;
  }
  return from_system(diagnose::Evidence(run));
}

}  // namespace linkscope::report
