#include "diagnose/evidence.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "core/text.hpp"
#include "diagnose/nccl_env.hpp"

namespace linkscope::diagnose {

namespace {

std::string normalize_throttle_reason(std::string reason) {
  reason = lower(std::move(reason));
  for (char& c : reason) {
    if (c == ' ' || c == '-') c = '_';
  }
  for (const char* prefix : {"clocks_event_reason_", "clocks_throttle_reason_", "nvmlclocksthrottlereason",
                             "nvmlclockseventreason"}) {
    const std::string p = prefix;
    if (reason.rfind(p, 0) == 0) reason = reason.substr(p.size());
  }
  return reason;
}

// One entry per visible unordered pair; a refusal in either direction wins.
// `index` maps (a, b) to its entry in `pairs`: a search per pair was quadratic in the pairs.
void add_pair(std::vector<PairView>& pairs, std::map<std::pair<int, int>, std::size_t>& index,
              const model::GpuPair& facts) {
  if (!facts.a || !facts.b || *facts.a == *facts.b) return;
  PairView pair;
  pair.a = std::min(*facts.a, *facts.b);
  pair.b = std::max(*facts.a, *facts.b);
  pair.relation = facts.relation.value_or("");
  pair.nvlink_count = facts.nvlink_count;
  if (facts.nvml_p2p) {
    const auto& p2p = *facts.nvml_p2p;
    for (const auto& [kind, status] : {std::make_pair("read", &p2p.read), std::make_pair("write", &p2p.write),
                                       std::make_pair("nvlink", &p2p.nvlink), std::make_pair("atomics", &p2p.atomics)}) {
      if (status->has_value()) pair.nvml_p2p[kind] = **status;
    }
  }
  pair.cuda_peer_access = facts.cuda_peer_access;
  const auto [found, inserted] = index.emplace(std::make_pair(pair.a, pair.b), pairs.size());
  if (inserted) {
    pairs.push_back(std::move(pair));
    return;
  }
  PairView* same = &pairs[found->second];
  for (const auto& [kind, status] : pair.nvml_p2p) {
    if (status != "OK" || same->nvml_p2p.count(kind) == 0) same->nvml_p2p[kind] = status;
  }
  if (pair.cuda_peer_access && !*pair.cuda_peer_access) same->cuda_peer_access = false;
  if (!same->cuda_peer_access) same->cuda_peer_access = pair.cuda_peer_access;
}

bool copy_ok(const model::CopyPoint& p) { return p.status == model::PointStatus::kOk && p.bandwidth_gbps.has_value(); }

std::vector<ModelGpu> model_gpus_of(const model::TopologyView& view) {
  std::vector<ModelGpu> gpus;
  std::map<std::string, std::string> node_types;
  for (const auto& node : view.nodes) {
    node_types[node.id] = node.type;
    if (node.type == "GPU") gpus.push_back(ModelGpu{&node, 0, 0, false, std::nullopt});
  }
  // Since NCCL 2.30 a GPU's NVLinks and PCI link belong to its physical device (DEV), linked LOC to the GPU.
  std::map<std::string, std::string> device_of;
  for (const auto& link : view.links) {
    if (link.type == "LOC" && node_types[link.from] == "GPU" && node_types[link.to] == "DEV") {
      device_of[link.from] = link.to;
    }
  }
  for (const auto& link : view.links) {
    for (auto& gpu : gpus) {
      const auto device = device_of.find(gpu.id());
      if ((device == device_of.end() ? gpu.id() : device->second) != link.from) continue;
      if (link.type == "NVL") {
        gpu.nvl_bw += link.bw;
        ++gpu.nvl_links;
        if (link.to.rfind("NVS/", 0) == 0 || node_types[link.to] == "NVS") gpu.to_nvswitch = true;
      } else if (link.type == "PCI" && !gpu.pci_bw) {
        gpu.pci_bw = link.bw;
      }
    }
  }
  return gpus;
}

}  // namespace

bool PairView::has_nvlink() const {
  if (nvlink_count > 0) return true;
  return path_type_of_relation(relation) == "NVL";
}

std::string CollectiveRef::op() const { return std::string(coll::op_name(series->op)); }

std::optional<double> CollectiveRef::cv() const {
  if (!point->time) return std::nullopt;
  return point->time->cv;
}

std::optional<double> CollectiveRef::relative_noise() const {
  // As for copies: 0 is what a run that recorded no CV or CI holds, not a measured absence of noise.
  if (!point->time) return std::nullopt;
  if (point->time->ci_relative > 0) return point->time->ci_relative;
  if (point->time->cv > 0) return point->time->cv;
  return std::nullopt;
}

std::string ModelGpu::pci_bdf() const {
  const std::string& node_id = id();
  const auto dash = node_id.find('-');
  if (dash == std::string::npos) return "";
  std::string hex = node_id.substr(dash + 1);
  if (hex.size() > 9 || hex.empty()) return "";
  hex = std::string(9 - hex.size(), '0') + hex;
  return fmt::format("{}:{}:{}.{}", hex.substr(0, 4), hex.substr(4, 2), hex.substr(6, 2), hex.substr(8, 1));
}

std::string ModelGpu::label() const {
  if (rank()) return fmt::format("{} (rank {})", id(), *rank());
  return id();
}

std::optional<double> relative_noise(const model::CopyPoint& point) {
  if (point.ci_relative > 0) return point.ci_relative;
  if (point.cv > 0) return point.cv;
  return std::nullopt;
}

bool is_disjoint(const model::PatternResult& pattern) {
  std::set<int> sources, destinations;
  for (const auto& edge : pattern.edges) {
    if (!sources.insert(edge.src).second) return false;
    if (!destinations.insert(edge.dst).second) return false;
  }
  return true;
}

std::vector<std::string> throttle_reasons(const model::Gpu& gpu) {
  std::vector<std::string> reasons;
  if (gpu.throttle_reasons.has_value()) {
    for (const auto& reason : *gpu.throttle_reasons) reasons.push_back(normalize_throttle_reason(reason));
  }
  return reasons;
}

std::string mig_mode(const model::Gpu& gpu) { return lower(gpu.mig_mode.value_or("")); }

double relative_gap(double x, double y) {
  const double high = std::max(x, y);
  if (high <= 0) return 0;
  return 1.0 - std::min(x, y) / high;
}

Evidence::Evidence(const model::Run& r)
    : run(r), system(r.system), topology(r.topology), env(r.environment.variables) {
  for (const auto& gpu : system.gpus) gpus.push_back(&gpu);
  std::map<std::pair<int, int>, std::size_t> pair_index;
  for (const auto& pair : system.pairs) add_pair(pairs, pair_index, pair);
  const model::Visibility& visibility = system.visibility;
  nvml_gpu_count = visibility.nvml_gpu_count;
  cuda_device_count = visibility.cuda_device_count;
  if (!cuda_device_count && system.present) cuda_device_count = system.cuda.device_count;
  cuda_visible_devices = visibility.cuda_visible_devices.value_or("");
  for (const auto& hidden : visibility.hidden) {
    // The facts of a GPU CUDA does not show: still a peer for link comparisons and ECC.
    if (hidden.gpu) gpus.push_back(&*hidden.gpu);
    std::string who = hidden.uuid;
    if (!hidden.pci_bdf.empty()) who = who.empty() ? hidden.pci_bdf : fmt::format("{} ({})", hidden.pci_bdf, who);
    hidden_gpus.emplace_back(who, hidden.reason);
  }

  model_gpus = model_gpus_of(topology);
  if (topology.relation_matrix) {
    const auto& matrix = *topology.relation_matrix;
    std::map<std::string, std::optional<int>> rank_by_id;  // looked up per cell: a search was cubic in the GPUs
    for (const auto& gpu : model_gpus) rank_by_id.emplace(gpu.id(), gpu.rank());
    auto rank_of = [&](std::size_t index) -> std::optional<int> {
      const auto it = rank_by_id.find(matrix.node_ids[index]);
      return it == rank_by_id.end() ? std::nullopt : it->second;
    };
    for (std::size_t row = 0; row < matrix.cells.size() && row < matrix.node_ids.size(); ++row) {
      const auto a = rank_of(row);
      if (!a) continue;
      for (std::size_t c = 0; c < matrix.cells[row].size() && c < matrix.node_ids.size(); ++c) {
        const auto b = rank_of(c);
        if (b && *a != *b) model_relations_[{*a, *b}] = matrix.cells[row][c];
      }
    }
  }

  runtime_known = !run.runtime.runs.empty();
  nccl_version = run.runtime.nccl_version.value_or("");
  for (const auto& rr : run.runtime.runs) {
    if (nccl_version.empty()) nccl_version = rr.info.nccl_version.value_or("");
    for (const auto& connection : rr.info.connections) connections.push_back({&rr, &connection});
  }

  const model::Measurements& m = run.measurements;
  p2p_measured = m.p2p.has_value();
  if (m.p2p) {
    // Several SM kernel shapes may be measured for one pair, size and method: keep the fastest that measured ok
    // (what the link can do), so every (src, dst, method, direction, bytes) appears once. Found through an index:
    // a search per point was quadratic in the points (80,000 sizes took minutes).
    using PointKey = std::tuple<int, int, std::string, std::string, std::uint64_t>;
    std::map<PointKey, std::size_t> index;
    for (const auto& point : m.p2p->points) {
      const auto [found, inserted] =
          index.emplace(PointKey{point.src, point.dst, point.method, point.direction, point.bytes}, p2p.size());
      if (inserted) {
        p2p.push_back(&point);
        continue;
      }
      const model::CopyPoint*& same = p2p[found->second];
      if (copy_ok(point) && (!copy_ok(*same) || point.bandwidth_gbps->median > same->bandwidth_gbps->median)) {
        same = &point;
      }
    }
  }
  collectives_measured = m.collectives.has_value();
  if (m.collectives) {
    for (const auto& series : *m.collectives) {
      const bool what_if = is_what_if(env, series.env);
      for (const auto& point : series.points) collectives.push_back({&series, &point, what_if});
    }
  }
  patterns_measured = m.patterns.has_value();
  ladder_measured = m.ladder.has_value();
  numa_measured = m.patterns && m.patterns->numa.has_value();
}

const std::vector<model::LatencyPoint>& Evidence::latency() const {
  static const std::vector<model::LatencyPoint> kNone;
  return run.measurements.p2p ? run.measurements.p2p->latency : kNone;
}

const std::vector<model::PatternResult>& Evidence::patterns() const {
  static const std::vector<model::PatternResult> kNone;
  return run.measurements.patterns ? run.measurements.patterns->patterns : kNone;
}

const std::vector<model::LadderLayer>& Evidence::ladder() const {
  static const std::vector<model::LadderLayer> kNone;
  return run.measurements.ladder ? run.measurements.ladder->layers : kNone;
}

const model::NumaSweep* Evidence::numa() const {
  return numa_measured ? &*run.measurements.patterns->numa : nullptr;
}

const model::Gpu* Evidence::gpu(int cuda_ordinal) const { return system.gpu_by_cuda_ordinal(cuda_ordinal); }

const PairView* Evidence::pair(int a, int b) const {
  for (const auto& p : pairs) {
    if ((p.a == a && p.b == b) || (p.a == b && p.b == a)) return &p;
  }
  return nullptr;
}

std::vector<int> Evidence::visible_ordinals() const {
  std::vector<int> ordinals;
  for (const auto* g : gpus) {
    if (g->cuda_ordinal) ordinals.push_back(*g->cuda_ordinal);
  }
  std::sort(ordinals.begin(), ordinals.end());
  return ordinals;
}

std::optional<LinkRate> Evidence::link_rate(int a, int b) const { return model::gpu_pair_rate(system, a, b); }

std::optional<LinkRate> Evidence::slowest_link_rate() const {
  return model::slowest_pair_rate(system, visible_ordinals());
}

std::string Evidence::model_relation(int a, int b) const {
  const auto it = model_relations_.find({a, b});
  return it == model_relations_.end() ? std::string() : it->second;
}

std::string Evidence::pair_type(int a, int b) const {
  if (const PairView* facts = pair(a, b); facts != nullptr && !facts->relation.empty()) return facts->relation;
  if (const std::string relation = model_relation(a, b); !relation.empty()) return relation;
  const std::string type = model_path_type(a, b);
  return type.empty() ? std::string("unknown") : type;
}

std::string Evidence::model_path_type(int a, int b) const {
  for (const auto& entry : topology.p2p) {
    if (entry.src_rank == a && entry.dst_rank == b && !entry.path_type.empty()) return entry.path_type;
  }
  const model::TopoNode* from = topology.gpu_by_rank(a);
  const model::TopoNode* to = topology.gpu_by_rank(b);
  if (from == nullptr || to == nullptr) return "";
  for (const auto& path : topology.paths) {
    if (path.from == from->id && path.to == to->id) return path.type;
  }
  return "";
}

std::optional<double> Evidence::model_path_bw(int a, int b) const {
  const model::TopoNode* from = topology.gpu_by_rank(a);
  const model::TopoNode* to = topology.gpu_by_rank(b);
  if (from != nullptr && to != nullptr) {
    for (const auto& path : topology.paths) {
      if (path.from == from->id && path.to == to->id) return path.bw;
    }
  }
  for (const auto& entry : topology.p2p) {
    if (entry.src_rank == a && entry.dst_rank == b) return entry.bw;
  }
  return std::nullopt;
}

bool named_like_linkscope(const model::GpuProcess& process) {
  return lower(process.name).find("linkscope") != std::string::npos;
}

std::vector<int> Evidence::busy_ordinals() const {
  std::vector<int> busy;
  for (const auto* g : gpus) {
    if (!g->cuda_ordinal || !g->processes.has_value()) continue;
    const bool foreign = std::any_of(g->processes->begin(), g->processes->end(),
                                     [](const model::GpuProcess& p) { return !named_like_linkscope(p); });
    if (foreign) busy.push_back(*g->cuda_ordinal);
  }
  return busy;
}

}  // namespace linkscope::diagnose
