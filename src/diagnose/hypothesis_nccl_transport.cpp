// nccl-uses-predicted-transport: from the pair's path type (NVLink, PCIe switch, host bridge), peer access and the
// user's NCCL_* variables, predict the transport NCCL picks per GPU pair (P2P or SHM) and check what a real NCCL
// run chose (`runtime`). Ranks are taken to be CUDA ordinals.
#include <map>
#include <set>

#include <fmt/format.h>

#include "diagnose/hypotheses.hpp"
#include "diagnose/measured_summary.hpp"
#include "diagnose/nccl_env.hpp"

namespace linkscope::diagnose {

std::optional<Hypothesis> make_nccl_transport(const Evidence& evidence) {
  const auto pairs = gpu_pair_path_types(evidence);
  if (pairs.empty()) return std::nullopt;
  const EnvMap env = merge_env(evidence.env, evidence.topology.env);
  nlohmann::json list = nlohmann::json::array();
  std::map<std::string, std::vector<std::string>> by_transport;
  for (const auto& [pair, type] : pairs) {
    const PairView* facts = evidence.pair(pair.first, pair.second);
    const bool no_peer_access = facts != nullptr && facts->cuda_peer_access && !*facts->cuda_peer_access;
    const auto index = path_type_index(type);
    const bool p2p = index && *index <= default_p2p_level() && !env_removes_p2p(env, type) && !no_peer_access;
    const std::string transport = p2p ? "P2P" : "SHM";
    list.push_back({{"a", pair.first}, {"b", pair.second}, {"path", type}, {"predicted", transport}});
    by_transport[transport].push_back(fmt::format("{}-{} ({})", pair.first, pair.second, type));
  }
  std::string summary;
  for (const auto& [transport, members] : by_transport) {
    std::string names;
    for (std::size_t i = 0; i < members.size() && i < 4; ++i) names += (i ? ", " : "") + members[i];
    if (members.size() > 4) names += fmt::format(" and {} more", members.size() - 4);
    summary += fmt::format("{}{} for {}", summary.empty() ? "" : "; ", transport, names);
  }
  const auto level = p2p_level_override(env);
  Hypothesis hypothesis;
  hypothesis.statement = by_transport.count("SHM") == 0
                             ? "NCCL connects every GPU pair with P2P (direct GPU memory access)"
                             : "NCCL connects GPU pairs as the path types and NCCL_* variables allow";
  hypothesis.prediction = fmt::format("NCCL's connections use {} (P2P level {}{})", summary,
                                      path_type_name(level.value_or(default_p2p_level())),
                                      level ? " from the environment" : ", NCCL's default");
  hypothesis.basis = "system/model: pair path types, peer access; environment: NCCL_P2P_DISABLE/NCCL_P2P_LEVEL";
  hypothesis.needs = "runtime (connections of a real NCCL run)";
  hypothesis.numbers = {{"pairs", list}};
  return hypothesis;
}

void judge_nccl_transport(const Context& context, Hypothesis& hypothesis) {
  const Evidence& evidence = context.evidence;
  if (!evidence.runtime_known || evidence.connections.empty()) {
    return set_untested(hypothesis, "not measured in this run: runtime has no NCCL connections");
  }
  struct PairPrediction {
    std::string path, transport;
    bool no_peer_access = false;
  };
  std::map<std::pair<int, int>, PairPrediction> predicted;
  for (const auto& entry : hypothesis.numbers.value("pairs", nlohmann::json::array())) {
    const std::pair<int, int> key{entry.value("a", -1), entry.value("b", -1)};
    const PairView* facts = evidence.pair(key.first, key.second);
    predicted[key] = {entry.value("path", std::string()), entry.value("predicted", std::string()),
                      facts != nullptr && facts->cuda_peer_access && !*facts->cuda_peer_access};
  }
  // (context, pair, transport, expected) -> channels. A run with its own NCCL_* variables (a ladder layer) is
  // predicted under those variables.
  std::map<std::tuple<std::string, std::pair<int, int>, std::string, std::string>, std::set<int>> seen;
  int matches = 0, mismatches = 0;
  for (const auto& ref : evidence.connections) {
    const model::NcclConnection& c = *ref.connection;
    const std::pair<int, int> key{std::min(c.rank, c.peer), std::max(c.rank, c.peer)};
    const auto it = predicted.find(key);
    if (it == predicted.end()) continue;
    std::string expected = it->second.transport;
    if (!ref.run->env.empty()) {
      const EnvMap env = merge_env(context.user_env, ref.run->env);
      const auto index = path_type_index(it->second.path);
      const bool p2p = index && *index <= default_p2p_level() && !env_removes_p2p(env, it->second.path) &&
                       !it->second.no_peer_access;
      const bool shm = env.count("NCCL_SHM_DISABLE") == 0 || env.at("NCCL_SHM_DISABLE") == "0";
      expected = p2p ? "P2P" : (shm ? "SHM" : "NET");
    }
    const std::string actual = transport_class(c.transport);
    (actual == expected || (expected == "P2P" && actual == "NVLS") ? matches : mismatches) += 1;
    seen[{ref.run->context, key, c.transport, expected}].insert(c.channel);
  }
  if (matches + mismatches == 0) {
    hypothesis.verdict = Verdict::kInconclusive;
    hypothesis.evidence = "the recorded NCCL connections involve no predicted pair";
    return;
  }
  std::string text;
  for (const auto& [key, channels] : seen) {
    const auto& [run_context, pair, transport, expected] = key;
    text += fmt::format("{}{}GPU{}-GPU{}: {} on {} channel(s) (predicted {})", text.empty() ? "" : "; ",
                        run_context.empty() ? "" : run_context + ": ", pair.first, pair.second, transport,
                        channels.size(), expected);
  }
  hypothesis.numbers["connections_matching"] = matches;
  hypothesis.numbers["connections_differing"] = mismatches;
  hypothesis.verdict = mismatches == 0 ? Verdict::kConfirmed : Verdict::kRefuted;
  hypothesis.evidence = text;
}

}  // namespace linkscope::diagnose
