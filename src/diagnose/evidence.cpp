#include "diagnose/evidence.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "core/text.hpp"
#include "diagnose/json_access.hpp"
#include "diagnose/nccl_env.hpp"

namespace linkscope::diagnose {

namespace {

using nlohmann::json;

std::optional<int> opt_small_int(const json& object, std::string_view key) {
  const auto value = opt_int(object, key);
  if (!value) return std::nullopt;
  return static_cast<int>(*value);
}


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

std::map<std::string, std::string> string_map(const json& object) {
  std::map<std::string, std::string> result;
  if (!object.is_object()) return result;
  for (const auto& [key, value] : object.items()) {
    if (auto text = opt_string(object, key)) result[key] = *text;
  }
  return result;
}

GpuFacts read_gpu(const json& entry) {
  GpuFacts gpu;
  gpu.cuda_ordinal = opt_small_int(entry, "cuda_ordinal");
  gpu.nvml_index = opt_small_int(entry, "nvml_index");
  gpu.uuid = string_or(entry, "uuid", "");
  gpu.pci_bdf = string_or(entry, "pci_bdf", "");
  gpu.name = string_or(entry, "name", "");
  gpu.sm = opt_small_int(entry, "sm");
  gpu.numa_node = opt_small_int(entry, "numa_node");
  gpu.cpu_affinity = string_or(entry, "cpu_affinity", "");
  const json& pcie = object_or_empty(entry, "pcie");
  gpu.pcie.current_gen = opt_small_int(pcie, "current_gen");
  gpu.pcie.max_gen = opt_small_int(pcie, "max_gen");
  gpu.pcie.current_width = opt_small_int(pcie, "current_width");
  gpu.pcie.max_width = opt_small_int(pcie, "max_width");
  gpu.mig_mode = lower(string_or(entry, "mig_mode", ""));
  if (const auto* reasons = find_field(entry, "throttle_reasons"); reasons != nullptr && reasons->is_array()) {
    gpu.throttle_known = true;
    for (const auto& reason : *reasons) {
      if (reason.is_string()) gpu.throttle_reasons.push_back(normalize_throttle_reason(reason.get<std::string>()));
    }
  }
  const json& ecc = object_or_empty(entry, "ecc");
  gpu.ecc.enabled = opt_bool(ecc, "enabled");
  gpu.ecc.volatile_uncorrected = opt_int(ecc, "volatile_uncorrected");
  gpu.ecc.volatile_corrected = opt_int(ecc, "volatile_corrected");
  gpu.ecc.aggregate_uncorrected = opt_int(ecc, "aggregate_uncorrected");
  gpu.ecc.aggregate_corrected = opt_int(ecc, "aggregate_corrected");
  if (const auto* links = find_field(entry, "nvlinks"); links != nullptr && links->is_array()) {
    gpu.nvlinks_known = true;
    for (const auto& link : *links) {
      NvlinkFacts facts;
      facts.link = opt_small_int(link, "link").value_or(-1);
      facts.active = opt_bool(link, "active").value_or(false);
      facts.version = opt_small_int(link, "version");
      facts.speed_gbps = opt_double(link, "speed_gbps");
      facts.remote_type = lower(string_or(link, "remote_type", ""));
      facts.remote_bdf = string_or(link, "remote_bdf", "");
      const json& errors = object_or_empty(link, "errors");
      facts.replay_errors = opt_int(errors, "replay");
      facts.recovery_errors = opt_int(errors, "recovery");
      facts.crc_errors = opt_int(errors, "crc_flit");
      gpu.nvlinks.push_back(facts);
    }
  }
  if (const auto* processes = find_field(entry, "processes"); processes != nullptr && processes->is_array()) {
    gpu.processes_known = true;
    for (const auto& process : *processes) {
      ProcessFacts facts;
      facts.pid = opt_int(process, "pid").value_or(0);
      facts.name = string_or(process, "name", "");
      facts.used_memory_bytes = opt_double(process, "used_memory_bytes");
      gpu.processes.push_back(facts);
    }
  }
  return gpu;
}

PairFacts read_pair(const json& entry) {
  PairFacts pair;
  pair.a = opt_small_int(entry, "a").value_or(-1);
  pair.b = opt_small_int(entry, "b").value_or(-1);
  pair.relation = string_or(entry, "relation", "");
  pair.nvlink_count = opt_small_int(entry, "nvlink_count");
  pair.nvml_p2p = string_map(object_or_empty(entry, "nvml_p2p"));
  pair.cuda_peer_access = opt_bool(entry, "cuda_peer_access");
  return pair;
}

void read_system(const json& system, Evidence& evidence) {
  evidence.system_known = system.is_object() && !system.empty();
  for (const auto& entry : array_or_empty(system, "gpus")) evidence.gpus.push_back(read_gpu(entry));
  // Discovery may list both orders of a pair (and pairs with hidden GPUs, whose ordinals are null): keep one entry
  // per visible unordered pair, where a refusal in either direction wins.
  for (const auto& entry : array_or_empty(system, "pairs")) {
    PairFacts pair = read_pair(entry);
    if (pair.a < 0 || pair.b < 0 || pair.a == pair.b) continue;
    if (pair.a > pair.b) std::swap(pair.a, pair.b);
    auto same = std::find_if(evidence.pairs.begin(), evidence.pairs.end(),
                             [&](const PairFacts& p) { return p.a == pair.a && p.b == pair.b; });
    if (same == evidence.pairs.end()) {
      evidence.pairs.push_back(pair);
      continue;
    }
    for (const auto& [kind, status] : pair.nvml_p2p) {
      if (status != "OK" || same->nvml_p2p.count(kind) == 0) same->nvml_p2p[kind] = status;
    }
    if (pair.cuda_peer_access && !*pair.cuda_peer_access) same->cuda_peer_access = false;
    if (!same->cuda_peer_access) same->cuda_peer_access = pair.cuda_peer_access;
  }
  const json& visibility = object_or_empty(system, "visibility");
  evidence.nvml_gpu_count = opt_small_int(visibility, "nvml_gpu_count");
  evidence.cuda_device_count = opt_small_int(visibility, "cuda_device_count");
  if (!evidence.cuda_device_count) evidence.cuda_device_count = opt_small_int(object_or_empty(system, "cuda"), "device_count");
  evidence.cuda_visible_devices = string_or(visibility, "cuda_visible_devices", "");
  for (const auto& hidden : array_or_empty(visibility, "hidden")) {
    // The facts of a GPU CUDA does not show (it is still a peer for link comparisons and ECC).
    if (const auto* facts = find_field(hidden, "gpu"); facts != nullptr && facts->is_object()) {
      GpuFacts gpu = read_gpu(*facts);
      gpu.cuda_ordinal.reset();
      if (!gpu.nvml_index) gpu.nvml_index = opt_small_int(hidden, "nvml_index");
      evidence.gpus.push_back(gpu);
    }
    std::string who = string_or(hidden, "uuid", "");
    const std::string bdf = string_or(hidden, "pci_bdf", "");
    if (!bdf.empty()) who = who.empty() ? bdf : fmt::format("{} ({})", bdf, who);
    evidence.hidden_gpus.emplace_back(who, string_or(hidden, "reason", ""));
  }
  evidence.numa_node_count = static_cast<int>(array_or_empty(system, "numa_nodes").size());
}

void read_model(const json& model, Evidence& evidence) {
  evidence.model_known = model.is_object() && (find_field(model, "nodes") != nullptr || find_field(model, "paths") != nullptr);
  evidence.model_env = string_map(object_or_empty(model, "env"));
  std::map<std::string, std::string> node_types;
  for (const auto& node : array_or_empty(model, "nodes")) {
    const std::string id = string_or(node, "id", "");
    const std::string type = string_or(node, "type", "");
    node_types[id] = type;
    if (type != "GPU") continue;
    ModelGpu gpu;
    gpu.id = id;
    gpu.rank = opt_small_int(node, "rank");
    gpu.dev = opt_small_int(node, "dev");
    gpu.sm = opt_small_int(node, "sm");
    gpu.nvlink_count = opt_small_int(node, "nvlink_count");
    const json& pcie = object_or_empty(node, "pcie");
    gpu.pcie_gen = opt_small_int(pcie, "gen");
    gpu.pcie_width = opt_small_int(pcie, "width");
    evidence.model_gpus.push_back(gpu);
  }
  for (const auto& link : array_or_empty(model, "links")) {
    const std::string from = string_or(link, "from", "");
    const std::string to = string_or(link, "to", "");
    const std::string type = string_or(link, "type", "");
    const double bw = opt_double(link, "bw").value_or(0.0);
    for (auto& gpu : evidence.model_gpus) {
      if (gpu.id != from) continue;
      if (type == "NVL") {
        gpu.nvl_bw += bw;
        ++gpu.nvl_links;
        if (to.rfind("NVS/", 0) == 0 || node_types[to] == "NVS") gpu.to_nvswitch = true;
      } else if (type == "PCI" && !gpu.pci_bw) {
        gpu.pci_bw = bw;
      }
    }
  }
  const json& matrix = object_or_empty(model, "relation_matrix");
  const json& ids = array_or_empty(matrix, "node_ids");
  const json& rows = array_or_empty(matrix, "rows");
  auto rank_of = [&](const json& id) -> std::optional<int> {
    if (!id.is_string()) return std::nullopt;
    for (const auto& gpu : evidence.model_gpus) {
      if (gpu.id == id.get<std::string>()) return gpu.rank;
    }
    return std::nullopt;
  };
  for (std::size_t r = 0; r < rows.size() && r < ids.size(); ++r) {
    const auto a = rank_of(ids[r]);
    if (!a || !rows[r].is_array()) continue;
    for (std::size_t c = 0; c < rows[r].size() && c < ids.size(); ++c) {
      const auto b = rank_of(ids[c]);
      if (b && *a != *b && rows[r][c].is_string()) evidence.model_relations[{*a, *b}] = rows[r][c].get<std::string>();
    }
  }
  for (const auto& path : array_or_empty(model, "paths")) {
    ModelPath entry;
    entry.from = string_or(path, "from", "");
    entry.to = string_or(path, "to", "");
    entry.type = string_or(path, "type", "");
    entry.bw = opt_double(path, "bw");
    entry.count = opt_small_int(path, "count");
    evidence.model_paths.push_back(entry);
  }
  for (const auto& p2p : array_or_empty(model, "p2p")) {
    ModelP2p entry;
    entry.src_rank = opt_small_int(p2p, "src_rank").value_or(-1);
    entry.dst_rank = opt_small_int(p2p, "dst_rank").value_or(-1);
    entry.path_type = string_or(p2p, "path_type", "");
    entry.bw = opt_double(p2p, "bw");
    entry.p2p = opt_bool(p2p, "p2p");
    evidence.model_p2p.push_back(entry);
  }
}

void read_runtime(const json& runtime, Evidence& evidence) {
  evidence.runtime_known = runtime.is_object() && find_field(runtime, "runs") != nullptr;
  evidence.nccl_version = string_or(runtime, "nccl_version", "");
  for (const auto& run : array_or_empty(runtime, "runs")) {
    if (evidence.nccl_version.empty()) evidence.nccl_version = string_or(run, "nccl_version", "");
    const std::string context = string_or(run, "context", "");
    const auto env = string_map(object_or_empty(run, "env"));
    for (const auto& connection : array_or_empty(run, "connections")) {
      RuntimeConnection entry;
      entry.context = context;
      entry.env = env;
      entry.rank = opt_small_int(connection, "rank").value_or(-1);
      entry.peer = opt_small_int(connection, "peer").value_or(-1);
      entry.channel = opt_small_int(connection, "channel").value_or(-1);
      entry.transport = string_or(connection, "transport", "");
      entry.detail = string_or(connection, "detail", "");
      evidence.connections.push_back(entry);
    }
  }
}

std::uint64_t read_bytes(const json& object) {
  const auto value = opt_int(object, "bytes");
  return value && *value > 0 ? static_cast<std::uint64_t>(*value) : 0;
}

void read_p2p(const json& p2p, Evidence& evidence) {
  evidence.p2p_measured = p2p.is_object() && find_field(p2p, "points") != nullptr;
  for (const auto& entry : array_or_empty(p2p, "points")) {
    P2pPoint point;
    point.src = opt_small_int(entry, "src").value_or(-1);
    point.dst = opt_small_int(entry, "dst").value_or(-1);
    point.method = string_or(entry, "method", "ce");
    point.direction = string_or(entry, "direction", "uni");
    point.bytes = read_bytes(entry);
    point.bandwidth_gbps = opt_median(entry, "bandwidth_gbps");
    const json& bandwidth = object_or_empty(entry, "bandwidth_gbps");
    point.bandwidth_min_gbps = opt_double(bandwidth, "min");
    point.bandwidth_max_gbps = opt_double(bandwidth, "max");
    point.total_gbps = opt_median(entry, "total_gbps");
    point.time_us = opt_median(entry, "time_us");
    point.cv = opt_double(entry, "cv");
    point.ci_relative = opt_double(entry, "ci_relative");
    point.samples = opt_int(entry, "samples");
    point.wrong = opt_int(entry, "wrong");
    point.status = string_or(entry, "status", "ok");
    point.reason = string_or(entry, "reason", "");
    point.sm_kernel = string_or(entry, "sm_kernel", "");
    // Several SM kernel shapes may be measured for one pair, size and method: keep the fastest that measured ok
    // (what the link can do), so every (src, dst, method, direction, bytes) appears once.
    auto same = std::find_if(evidence.p2p.begin(), evidence.p2p.end(), [&](const P2pPoint& p) {
      return p.src == point.src && p.dst == point.dst && p.method == point.method && p.direction == point.direction &&
             p.bytes == point.bytes;
    });
    if (same == evidence.p2p.end()) {
      evidence.p2p.push_back(point);
    } else if (point.ok() && (!same->ok() || *point.bandwidth_gbps > *same->bandwidth_gbps)) {
      *same = point;
    }
  }
  for (const auto& entry : array_or_empty(p2p, "latency")) {
    LatencyPoint point;
    point.src = opt_small_int(entry, "src").value_or(-1);
    point.dst = opt_small_int(entry, "dst").value_or(-1);
    point.method = string_or(entry, "method", "");
    point.latency_ns = opt_median(entry, "latency_ns");
    point.status = string_or(entry, "status", "ok");
    point.reason = string_or(entry, "reason", "");
    evidence.latency.push_back(point);
  }
}

// After `evidence.env` is read: what-if series are recognized against the user's environment.
void read_collectives(const json& collectives, Evidence& evidence) {
  evidence.collectives_measured = collectives.is_array();
  if (!collectives.is_array()) return;
  for (const auto& sweep : collectives) {
    const std::string op = string_or(sweep, "op", "");
    const int nranks = opt_small_int(sweep, "nranks").value_or(0);
    const bool graph = opt_bool(sweep, "graph").value_or(false);
    const auto env = string_map(object_or_empty(sweep, "env"));
    const bool what_if = is_what_if(evidence.env, env);
    for (const auto& entry : array_or_empty(sweep, "points")) {
      CollectivePoint point;
      point.what_if = what_if;
      point.op = op;
      point.nranks = nranks;
      point.graph = graph;
      point.env = env;
      point.bytes = read_bytes(entry);
      point.in_place = opt_bool(entry, "in_place").value_or(false);
      point.time_us = opt_median(entry, "time_us");
      point.algbw_gbps = opt_median(entry, "algbw_gbps");
      point.busbw_gbps = opt_median(entry, "busbw_gbps");
      point.cv = opt_double(entry, "cv");
      point.ci_relative = opt_double(entry, "ci_relative");
      point.wrong = opt_int(entry, "wrong");
      point.status = string_or(entry, "status", "ok");
      point.reason = string_or(entry, "reason", "");
      evidence.collectives.push_back(point);
    }
  }
}

void read_patterns(const json& patterns, Evidence& evidence) {
  evidence.patterns_measured = patterns.is_array();
  if (!patterns.is_array()) return;
  for (const auto& entry : patterns) {
    PatternResult pattern;
    pattern.name = string_or(entry, "name", "");
    pattern.status = string_or(entry, "status", "ok");
    pattern.reason = string_or(entry, "reason", "");
    pattern.method = string_or(entry, "method", "");
    pattern.bytes = read_bytes(entry);
    pattern.cpu_node = opt_int(entry, "cpu_node");
    for (const auto& edge : array_or_empty(entry, "edges")) {
      PatternEdge e;
      e.src = opt_small_int(edge, "src").value_or(-1);
      e.dst = opt_small_int(edge, "dst").value_or(-1);
      e.bandwidth_gbps = opt_median(edge, "bandwidth_gbps");
      e.alone_gbps = opt_median(edge, "alone_gbps");
      pattern.edges.push_back(e);
    }
    pattern.aggregate_gbps = opt_double(entry, "aggregate_gbps");
    pattern.sum_alone_gbps = opt_double(entry, "sum_alone_gbps");
    pattern.scaling = opt_double(entry, "scaling");
    if (!pattern.scaling && pattern.aggregate_gbps && pattern.sum_alone_gbps && *pattern.sum_alone_gbps > 0) {
      pattern.scaling = *pattern.aggregate_gbps / *pattern.sum_alone_gbps;
    }
    evidence.patterns.push_back(pattern);
  }
}

void read_ladder(const json& ladder, Evidence& evidence) {
  evidence.ladder_measured = ladder.is_object() && find_field(ladder, "layers") != nullptr;
  for (const auto& entry : array_or_empty(ladder, "layers")) {
    LadderLayer layer;
    layer.name = string_or(entry, "name", "");
    layer.transport = string_or(entry, "transport", "");
    layer.status = string_or(entry, "status", "ok");
    layer.reason = string_or(entry, "reason", "");
    layer.env = string_map(object_or_empty(entry, "env"));
    layer.busbw_gbps = opt_double(entry, "busbw_gbps");
    layer.peak_gbps = opt_double(entry, "peak_gbps");
    layer.efficiency = opt_double(entry, "efficiency");
    layer.slowdown = opt_double(entry, "slowdown");
    evidence.ladder.push_back(layer);
  }
}

void read_numa(const json& numa, Evidence& evidence) {
  evidence.numa_measured = numa.is_object() && !numa.empty();
  evidence.numa_largest_relative_difference = opt_double(numa, "largest_relative_difference");
  for (const auto& node : array_or_empty(numa, "nodes")) {
    if (node.is_number_integer()) evidence.numa_nodes_measured.push_back(node.get<long long>());
  }
}

}  // namespace

int GpuFacts::active_nvlinks() const {
  return static_cast<int>(std::count_if(nvlinks.begin(), nvlinks.end(), [](const NvlinkFacts& l) { return l.active; }));
}

std::optional<double> GpuFacts::active_nvlink_rate_gbps() const {
  if (!nvlinks_known) return std::nullopt;
  double total = 0;
  for (const auto& link : nvlinks) {
    if (link.active && link.speed_gbps) total += *link.speed_gbps;
  }
  return total;
}

std::optional<double> GpuFacts::typical_link_speed_gbps() const {
  std::map<long long, int> counts;  // speed in 1/1000 GB/s -> number of links
  for (const auto& link : nvlinks) {
    if (link.active && link.speed_gbps) ++counts[std::llround(*link.speed_gbps * 1000.0)];
  }
  if (counts.empty()) return std::nullopt;
  auto best = counts.begin();
  for (auto it = counts.begin(); it != counts.end(); ++it) {
    if (it->second > best->second || (it->second == best->second && it->first > best->first)) best = it;
  }
  return static_cast<double>(best->first) / 1000.0;
}

bool GpuFacts::links_to_nvswitch() const {
  return std::any_of(nvlinks.begin(), nvlinks.end(),
                     [](const NvlinkFacts& l) { return l.active && l.remote_type.find("switch") != std::string::npos; });
}

std::optional<double> GpuFacts::pcie_rate_gbps(bool use_max) const {
  return use_max ? diagnose::pcie_rate_gbps(pcie.max_gen, pcie.max_width)
                 : diagnose::pcie_rate_gbps(pcie.current_gen, pcie.current_width);
}

std::string GpuFacts::label() const {
  if (cuda_ordinal) return fmt::format("GPU{}", *cuda_ordinal);
  if (nvml_index) return fmt::format("NVML GPU{}", *nvml_index);
  return pci_bdf.empty() ? std::string("GPU ?") : fmt::format("GPU {}", pci_bdf);
}

bool GpuFacts::same_kind(const GpuFacts& other) const { return name == other.name && sm == other.sm; }

bool PairFacts::has_nvlink() const {
  if (nvlink_count) return *nvlink_count > 0;
  return path_type_of_relation(relation) == "NVL";
}

std::optional<double> P2pPoint::relative_noise() const {
  if (ci_relative) return ci_relative;
  return cv;
}

bool PatternResult::disjoint() const {
  std::set<int> sources, destinations;
  for (const auto& edge : edges) {
    if (!sources.insert(edge.src).second) return false;
    if (!destinations.insert(edge.dst).second) return false;
  }
  return true;
}

std::string ModelGpu::pci_bdf() const {
  const auto dash = id.find('-');
  if (dash == std::string::npos) return "";
  std::string hex = id.substr(dash + 1);
  if (hex.size() > 9 || hex.empty()) return "";
  hex = std::string(9 - hex.size(), '0') + hex;
  return fmt::format("{}:{}:{}.{}", hex.substr(0, 4), hex.substr(4, 2), hex.substr(6, 2), hex.substr(8, 1));
}

std::string ModelGpu::label() const {
  if (rank) return fmt::format("{} (rank {})", id, *rank);
  return id;
}

const GpuFacts* Evidence::gpu(int cuda_ordinal) const {
  for (const auto& g : gpus) {
    if (g.cuda_ordinal && *g.cuda_ordinal == cuda_ordinal) return &g;
  }
  return nullptr;
}

const PairFacts* Evidence::pair(int a, int b) const {
  for (const auto& p : pairs) {
    if ((p.a == a && p.b == b) || (p.a == b && p.b == a)) return &p;
  }
  return nullptr;
}

std::vector<int> Evidence::visible_ordinals() const {
  std::vector<int> ordinals;
  for (const auto& g : gpus) {
    if (g.cuda_ordinal) ordinals.push_back(*g.cuda_ordinal);
  }
  std::sort(ordinals.begin(), ordinals.end());
  return ordinals;
}

std::optional<LinkRate> Evidence::link_rate(int a, int b) const {
  const GpuFacts* ga = gpu(a);
  const GpuFacts* gb = gpu(b);
  if (ga == nullptr || gb == nullptr) return std::nullopt;
  const PairFacts* facts = pair(a, b);
  const bool nvlinked = facts != nullptr ? facts->has_nvlink() : false;
  if (nvlinked) {
    if (ga->links_to_nvswitch() && gb->links_to_nvswitch()) {
      // Through the NVSwitch fabric a pair can use every active link of the slower endpoint.
      const GpuFacts* slow = ga->active_nvlinks() <= gb->active_nvlinks() ? ga : gb;
      const auto rate = slow->active_nvlink_rate_gbps();
      const auto speed = slow->typical_link_speed_gbps();
      if (rate && speed && *rate > 0) {
        return LinkRate{*rate, fmt::format("{} x {:.3f} GB/s NVLink", slow->active_nvlinks(), *speed), true};
      }
    }
    const auto speed = ga->typical_link_speed_gbps() ? ga->typical_link_speed_gbps() : gb->typical_link_speed_gbps();
    if (facts->nvlink_count && speed) {
      return LinkRate{*facts->nvlink_count * *speed, fmt::format("{} x {:.3f} GB/s NVLink", *facts->nvlink_count, *speed),
                      true};
    }
  }
  const auto ra = ga->pcie_rate_gbps();
  const auto rb = gb->pcie_rate_gbps();
  if (!ra || !rb) return std::nullopt;
  const GpuFacts* slow = *ra <= *rb ? ga : gb;
  return LinkRate{std::min(*ra, *rb),
                  fmt::format("PCIe Gen{} x{}", slow->pcie.current_gen.value_or(0), slow->pcie.current_width.value_or(0)),
                  false};
}

std::optional<LinkRate> Evidence::slowest_link_rate() const {
  std::optional<LinkRate> slowest;
  const auto ordinals = visible_ordinals();
  for (std::size_t i = 0; i < ordinals.size(); ++i) {
    for (std::size_t j = i + 1; j < ordinals.size(); ++j) {
      const auto rate = link_rate(ordinals[i], ordinals[j]);
      if (rate && (!slowest || rate->gbps < slowest->gbps)) slowest = rate;
    }
  }
  return slowest;
}

std::string Evidence::model_relation(int a, int b) const {
  const auto it = model_relations.find({a, b});
  return it == model_relations.end() ? std::string() : it->second;
}

std::string Evidence::pair_type(int a, int b) const {
  if (const PairFacts* facts = pair(a, b); facts != nullptr && !facts->relation.empty()) return facts->relation;
  if (const std::string relation = model_relation(a, b); !relation.empty()) return relation;
  const std::string type = model_path_type(a, b);
  return type.empty() ? std::string("unknown") : type;
}

std::string Evidence::model_path_type(int a, int b) const {
  for (const auto& entry : model_p2p) {
    if (entry.src_rank == a && entry.dst_rank == b && !entry.path_type.empty()) return entry.path_type;
  }
  std::string from, to;
  for (const auto& g : model_gpus) {
    if (g.rank && *g.rank == a) from = g.id;
    if (g.rank && *g.rank == b) to = g.id;
  }
  for (const auto& path : model_paths) {
    if (path.from == from && path.to == to) return path.type;
  }
  return "";
}

std::optional<double> Evidence::model_path_bw(int a, int b) const {
  std::string from, to;
  for (const auto& g : model_gpus) {
    if (g.rank && *g.rank == a) from = g.id;
    if (g.rank && *g.rank == b) to = g.id;
  }
  for (const auto& path : model_paths) {
    if (path.from == from && path.to == to && !from.empty()) return path.bw;
  }
  for (const auto& entry : model_p2p) {
    if (entry.src_rank == a && entry.dst_rank == b) return entry.bw;
  }
  return std::nullopt;
}

std::vector<int> Evidence::busy_ordinals() const {
  std::vector<int> busy;
  for (const auto& g : gpus) {
    if (!g.cuda_ordinal) continue;
    const bool foreign = std::any_of(g.processes.begin(), g.processes.end(), [](const ProcessFacts& p) {
      return lower(p.name).find("linkscope") == std::string::npos;
    });
    if (foreign) busy.push_back(*g.cuda_ordinal);
  }
  return busy;
}

Evidence collect_evidence(const RunDocument& run) {
  Evidence evidence;
  read_system(run.system, evidence);
  evidence.env = string_map(object_or_empty(run.environment, "variables"));
  read_model(run.model, evidence);
  read_runtime(run.runtime, evidence);
  const json& measurements = run.measurements;
  if (const auto* p2p = find_field(measurements, "p2p")) read_p2p(*p2p, evidence);
  if (const auto* collectives = find_field(measurements, "collectives")) read_collectives(*collectives, evidence);
  if (const auto* patterns = find_field(measurements, "patterns")) read_patterns(*patterns, evidence);
  if (const auto* ladder = find_field(measurements, "ladder")) read_ladder(*ladder, evidence);
  if (const auto* numa = find_field(measurements, "numa_sweep")) read_numa(*numa, evidence);
  return evidence;
}

std::optional<double> pcie_rate_gbps(std::optional<int> gen, std::optional<int> width) {
  if (!gen || !width || *gen <= 0 || *width <= 0) return std::nullopt;
  double per_lane = 0;
  switch (*gen) {
    case 1: per_lane = 2.5 * 0.8 / 8.0; break;
    case 2: per_lane = 5.0 * 0.8 / 8.0; break;
    case 3: per_lane = 8.0 * 128.0 / 130.0 / 8.0; break;
    case 4: per_lane = 16.0 * 128.0 / 130.0 / 8.0; break;
    case 5: per_lane = 32.0 * 128.0 / 130.0 / 8.0; break;
    case 6: per_lane = 64.0 * 242.0 / 256.0 / 8.0; break;
    default: return std::nullopt;
  }
  return per_lane * *width;
}

double relative_gap(double x, double y) {
  const double high = std::max(x, y);
  if (high <= 0) return 0;
  return 1.0 - std::min(x, y) / high;
}

}  // namespace linkscope::diagnose
