#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/run.hpp"
#include "diagnose/evidence.hpp"
#include "diagnose/nccl_env.hpp"

namespace linkscope::diagnose {

// Everything the rules and the hypothesis judges share, computed once per RunDocument.
struct Context {
  Evidence evidence;
  // The user's NCCL environment: environment.variables overlaid with the model's env (`--env` what-ifs).
  EnvMap user_env;
  std::vector<EnvEffect> env_effects;
  // GPUs with other processes on them during the run: their slow numbers are attributed to that load.
  std::vector<int> busy_gpus;
  // A run of several hosts (MPI): system.host_differences and measurements.cross_host as the run has them
  // (docs/run-schema.md); empty array / null otherwise.
  nlohmann::json host_differences = nlohmann::json::array();
  nlohmann::json cross_host;

  bool is_busy(int cuda_ordinal) const;
  // Env a collective ran under (user env + its own overrides).
  EnvMap collective_env(const CollectivePoint& point) const;
  // True when that env takes P2P away from some GPU pair of this machine.
  bool env_removes_p2p_somewhere(const EnvMap& env) const;
  // One line naming the processes on a GPU: "pid 4242 python3 (10.0 GiB)".
  std::string processes_text(int cuda_ordinal) const;
};

Context make_context(const RunDocument& run);

}  // namespace linkscope::diagnose
