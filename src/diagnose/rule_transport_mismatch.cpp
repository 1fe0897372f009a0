// transport-mismatch: NCCL connected a GPU pair with a slower transport (SHM, NET) than the topology allows
// (P2P over NVLink or a PCIe switch; SHM inside one host). Pairs whose transport is explained by the run's
// NCCL_* variables are left to nccl-env-path-removed, pairs without peer access to p2p-unavailable.
// Ranks are taken to be CUDA ordinals (one process driving all GPUs, as `linkscope coll` and nccl-tests -g do).
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "diagnose/measured_summary.hpp"
#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

namespace {

std::string pair_path_type(const Evidence& evidence, int a, int b) {
  if (const PairView* pair = evidence.pair(a, b); pair != nullptr && !pair->relation.empty()) {
    return pair->has_nvlink() ? "NVL" : path_type_of_relation(pair->relation);
  }
  if (const std::string relation = evidence.model_relation(a, b); !relation.empty()) return path_type_of_relation(relation);
  return evidence.model_path_type(a, b);
}

}  // namespace

std::optional<Finding> rule_transport_mismatch(const Context& context) {
  const Evidence& evidence = context.evidence;
  Finding finding;
  finding.id = "transport-mismatch";
  bool nvlink = false;
  // (context, rank, peer) -> (transport, channels)
  std::map<std::tuple<std::string, int, int>, std::pair<std::string, std::set<int>>> slow;
  for (const auto& ref : evidence.connections) {
    const model::NcclConnection& connection = *ref.connection;
    if (connection.rank < 0 || connection.peer < 0 || connection.rank == connection.peer) continue;
    const std::string actual = transport_class(connection.transport);
    const auto actual_rank = transport_rank(actual);
    if (!actual_rank || *actual_rank == 0) continue;
    const std::string path = pair_path_type(evidence, connection.rank, connection.peer);
    const auto index = path_type_index(path);
    if (!index) continue;
    const EnvMap env = merge_env(context.user_env, ref.run->env);
    const PairView* pair = evidence.pair(connection.rank, connection.peer);
    const bool peer_access_off = pair != nullptr && pair->cuda_peer_access && !*pair->cuda_peer_access;
    const bool p2p_allowed = *index <= default_p2p_level() && !env_removes_p2p(env, path) && !peer_access_off;
    const bool shm_allowed = env.count("NCCL_SHM_DISABLE") == 0 || env.at("NCCL_SHM_DISABLE") == "0";
    const int best = p2p_allowed ? 0 : (shm_allowed ? 1 : 2);
    if (*actual_rank <= best) continue;
    auto& entry = slow[{ref.run->context, connection.rank, connection.peer}];
    entry.first = connection.transport;
    entry.second.insert(connection.channel);
    nvlink = nvlink || path == "NVL" || path == "NVB";
  }
  if (slow.empty()) return std::nullopt;
  std::set<int> gpus;
  for (const auto& [key, value] : slow) {
    const auto& [run_context, rank, peer] = key;
    const std::string path = pair_path_type(evidence, rank, peer);
    finding.evidence.push_back(fmt::format("NCCL {}: rank {} -> {} via {} on {} channel(s); topology path {} allows {}",
                                           run_context.empty() ? "run" : run_context, rank, peer, value.first,
                                           value.second.size(), path,
                                           *path_type_index(path) <= default_p2p_level() ? "P2P" : "SHM"));
    gpus.insert(rank);
    gpus.insert(peer);
  }
  finding.gpus.assign(gpus.begin(), gpus.end());
  finding.severity = nvlink ? Severity::kError : Severity::kWarning;
  finding.title = "NCCL used a slower transport than the topology allows";
  finding.explanation =
      "NCCL picks P2P when both GPUs can reach each other's memory; SHM stages every step through host memory and "
      "NET through a NIC or sockets, each several times slower than NVLink.";
  finding.cause = "P2P refused at run time (peer access failed, NCCL_P2P_* set in a config file such as "
                  "/etc/nccl.conf or ~/.nccl.conf, or containers without a shared IPC namespace)";
  finding.next_command = "linkscope coll all_reduce -b 1G -e 1G   # records the transports NCCL picks";
  return finding;
}

}  // namespace linkscope::diagnose
