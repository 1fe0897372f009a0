#include "diagnose/nccl_env.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdlib>

#include <fmt/format.h>

namespace linkscope::diagnose {

namespace {

constexpr std::array<const char*, 10> kPathNames = {"LOC", "NVL", "NVB", "C2C", "PIX",
                                                    "PXB", "P2C", "PXN", "PHB", "SYS"};
constexpr int kLoc = 0, kNvb = 2, kPxb = 5, kSys = 9;

// strtol(value, 0) as NCCL parses numeric variables: leading digits (any base prefix), else 0.
long parse_long_like_nccl(const std::string& value) { return std::strtol(value.c_str(), nullptr, 0); }

std::string pair_list(const std::vector<std::pair<int, int>>& pairs) {
  std::string text;
  const std::size_t shown = std::min<std::size_t>(pairs.size(), 6);
  for (std::size_t i = 0; i < shown; ++i) {
    if (i > 0) text += ", ";
    text += fmt::format("{}-{}", pairs[i].first, pairs[i].second);
  }
  if (pairs.size() > shown) text += fmt::format(" and {} more", pairs.size() - shown);
  return text;
}

bool truthy(const std::string& value) { return parse_long_like_nccl(value) != 0; }

}  // namespace

std::string path_type_of_relation(const std::string& relation) {
  if (relation.size() > 2 && relation.compare(0, 2, "NV") == 0 &&
      std::isdigit(static_cast<unsigned char>(relation[2]))) {
    return "NVL";
  }
  if (relation == "NODE") return "PHB";
  return relation;
}

std::optional<int> path_type_index(const std::string& name) {
  for (std::size_t i = 0; i < kPathNames.size(); ++i) {
    if (name == kPathNames[i]) return static_cast<int>(i);
  }
  return std::nullopt;
}

std::string path_type_name(int index) {
  if (index < 0 || index >= static_cast<int>(kPathNames.size())) return "?";
  return kPathNames[static_cast<std::size_t>(index)];
}

int default_p2p_level() { return kPxb; }

std::optional<int> p2p_level_override(const EnvMap& env) {
  if (const auto it = env.find("NCCL_P2P_DISABLE"); it != env.end() && parse_long_like_nccl(it->second) == 1) {
    return kLoc;
  }
  const auto it = env.find("NCCL_P2P_LEVEL");
  if (it == env.end() || it->second.empty()) return std::nullopt;
  if (const auto exact = path_type_index(it->second)) return exact;
  if (!std::isdigit(static_cast<unsigned char>(it->second[0]))) return std::nullopt;
  // Numeric levels keep their pre-2.12 meaning: 0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 and above SYS.
  const long numeric = std::min(parse_long_like_nccl(it->second), 5L);
  static constexpr std::array<int, 6> kNumeric = {kLoc, 4, kPxb, 8, kSys, kSys};
  return numeric < 0 ? std::nullopt : std::optional<int>(kNumeric[static_cast<std::size_t>(numeric)]);
}

bool env_removes_p2p(const EnvMap& env, const std::string& path_type) {
  const auto level = p2p_level_override(env);
  const auto type = path_type_index(path_type_of_relation(path_type));
  if (!level || !type) return false;
  return *type <= default_p2p_level() && *type > *level;
}

bool is_path_variable(const std::string& name) {
  static const std::array<const char*, 13> kNames = {
      "NCCL_P2P_DISABLE", "NCCL_P2P_LEVEL",    "NCCL_SHM_DISABLE", "NCCL_NVB_DISABLE",   "NCCL_IB_DISABLE",
      "NCCL_NET_GDR_LEVEL", "NCCL_NET_GDR_READ", "NCCL_ALGO",       "NCCL_PROTO",         "NCCL_MAX_NCHANNELS",
      "NCCL_MAX_CTAS",     "NCCL_MIN_NCHANNELS", "NCCL_NET_DISABLE_INTRA"};
  return std::find(kNames.begin(), kNames.end(), name) != kNames.end();
}

bool is_what_if(const EnvMap& base, const EnvMap& overrides) {
  for (const auto& [name, value] : overrides) {
    if (!is_path_variable(name)) continue;
    const auto it = base.find(name);
    if (it == base.end() || it->second != value) return true;
  }
  return false;
}

EnvMap merge_env(const EnvMap& base, const EnvMap& overrides) {
  EnvMap merged = base;
  for (const auto& [key, value] : overrides) merged[key] = value;
  return merged;
}

std::vector<std::pair<std::pair<int, int>, std::string>> gpu_pair_path_types(const Evidence& evidence) {
  std::vector<std::pair<std::pair<int, int>, std::string>> result;
  std::vector<int> ranks = evidence.visible_ordinals();
  if (ranks.empty()) {
    for (const auto& gpu : evidence.model_gpus) {
      if (gpu.rank()) ranks.push_back(*gpu.rank());
    }
    std::sort(ranks.begin(), ranks.end());
  }
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    for (std::size_t j = i + 1; j < ranks.size(); ++j) {
      std::string type;
      if (const PairView* pair = evidence.pair(ranks[i], ranks[j]); pair != nullptr && !pair->relation.empty()) {
        type = path_type_of_relation(pair->relation);
      }
      // The model's final path may already reflect the variables (phase 3 diverts P2P-less pairs through the
      // CPU), so the hardware relation wins, then the model's relation before rewrites, then its final path.
      if (type.empty()) type = path_type_of_relation(evidence.model_relation(ranks[i], ranks[j]));
      if (type.empty()) type = evidence.model_path_type(ranks[i], ranks[j]);
      if (!type.empty()) result.push_back({{ranks[i], ranks[j]}, type});
    }
  }
  return result;
}

std::vector<EnvEffect> nccl_env_effects(const EnvMap& env, const std::string& source, const Evidence& evidence) {
  std::vector<EnvEffect> effects;
  const auto pairs = gpu_pair_path_types(evidence);
  auto add = [&](const std::string& variable, std::string effect, Severity severity) -> EnvEffect& {
    EnvEffect e;
    e.variable = variable;
    e.value = env.at(variable);
    e.source = source;
    e.effect = std::move(effect);
    e.severity = severity;
    effects.push_back(std::move(e));
    return effects.back();
  };

  // P2P: NCCL_P2P_DISABLE=1 or a NCCL_P2P_LEVEL below a pair's path type takes P2P away from that pair.
  if (const auto level = p2p_level_override(env)) {
    std::vector<std::pair<int, int>> losing;
    bool nvlink_lost = false;
    for (const auto& [pair, type] : pairs) {
      if (env_removes_p2p(env, type)) {
        losing.push_back(pair);
        const auto index = path_type_index(type);
        nvlink_lost = nvlink_lost || (index && *index <= kNvb);
      }
    }
    const std::string variable = env.count("NCCL_P2P_DISABLE") != 0 && *level == kLoc &&
                                         parse_long_like_nccl(env.at("NCCL_P2P_DISABLE")) == 1
                                     ? "NCCL_P2P_DISABLE"
                                     : "NCCL_P2P_LEVEL";
    if (!losing.empty()) {
      auto& e = add(variable,
                    fmt::format("P2P level {}: GPU pairs {} lose P2P and go through host memory (SHM) instead{}",
                                path_type_name(*level), pair_list(losing), nvlink_lost ? " of NVLink" : ""),
                    nvlink_lost ? Severity::kError : Severity::kWarning);
      e.pairs_losing_p2p = losing;
    } else if (*level > default_p2p_level()) {
      add(variable,
          fmt::format("P2P level raised to {}: NCCL may use P2P across host bridges or CPU sockets, where it is often "
                      "slower than SHM or unsupported",
                      path_type_name(*level)),
          Severity::kInfo);
    } else if (pairs.empty()) {
      add(variable, fmt::format("P2P level {}: GPU pairs on longer paths lose P2P", path_type_name(*level)),
          Severity::kInfo);
    }
  }

  if (const auto it = env.find("NCCL_SHM_DISABLE"); it != env.end() && truthy(it->second)) {
    std::vector<std::pair<int, int>> without_p2p;
    for (const auto& [pair, type] : pairs) {
      const auto index = path_type_index(type);
      const bool p2p_default = index && *index <= default_p2p_level();
      if (!p2p_default || env_removes_p2p(env, type)) without_p2p.push_back(pair);
    }
    if (!without_p2p.empty()) {
      add("NCCL_SHM_DISABLE",
          fmt::format("shared memory transport removed: GPU pairs {} have no P2P, so NCCL falls back to the network",
                      pair_list(without_p2p)),
          Severity::kWarning);
    } else {
      add("NCCL_SHM_DISABLE", "shared memory transport removed (unused here while every pair has P2P)", Severity::kInfo);
    }
  }

  if (const auto it = env.find("NCCL_NVB_DISABLE"); it != env.end() && truthy(it->second)) {
    const bool has_nvb = std::any_of(pairs.begin(), pairs.end(), [](const auto& p) { return p.second == "NVB"; });
    add("NCCL_NVB_DISABLE",
        has_nvb ? "NVLink relay through a peer GPU (NVB) removed: those pairs fall back to PCIe/host paths"
                : "NVLink relay through a peer GPU (NVB) removed (no NVB pair here)",
        has_nvb ? Severity::kWarning : Severity::kInfo);
  }

  if (const auto it = env.find("NCCL_IB_DISABLE"); it != env.end() && truthy(it->second)) {
    add("NCCL_IB_DISABLE",
        "InfiniBand/RoCE transport removed: traffic between nodes uses TCP sockets (no effect inside one node)",
        Severity::kInfo);
  }
  if (const auto it = env.find("NCCL_NET_GDR_LEVEL"); it != env.end()) {
    add("NCCL_NET_GDR_LEVEL",
        fmt::format("GPUDirect RDMA limited to NIC distance {} (inter-node traffic may stage through host memory)",
                    it->second),
        Severity::kInfo);
  }
  if (const auto it = env.find("NCCL_NET_GDR_READ"); it != env.end() && parse_long_like_nccl(it->second) == 0) {
    add("NCCL_NET_GDR_READ", "GPUDirect RDMA reads disabled for sends", Severity::kInfo);
  }
  for (const char* variable : {"NCCL_ALGO", "NCCL_PROTO"}) {
    if (const auto it = env.find(variable); it != env.end() && !it->second.empty()) {
      add(variable,
          fmt::format("forces {} {}: NCCL's tuner cannot pick the fastest choice per size",
                      std::string(variable) == "NCCL_ALGO" ? "algorithm" : "protocol", it->second),
          Severity::kWarning);
    }
  }
  for (const char* variable : {"NCCL_MAX_NCHANNELS", "NCCL_MAX_CTAS"}) {
    if (const auto it = env.find(variable); it != env.end()) {
      const long channels = parse_long_like_nccl(it->second);
      if (channels > 0) {
        add(variable, fmt::format("caps NCCL at {} channels: large messages may not use every link", channels),
            Severity::kWarning);
      }
    }
  }
  return effects;
}

}  // namespace linkscope::diagnose
