#pragma once
#include <optional>
#include <string>
#include <vector>

#include "diagnose/evidence.hpp"
#include "diagnose/foreign_activity.hpp"
#include "diagnose/nccl_env.hpp"
#include "model/run.hpp"

namespace linkscope::diagnose {

// Everything the rules and the hypothesis judges share, computed once per Run (which must outlive it).
struct Context {
  explicit Context(const model::Run& run);

  Evidence evidence;
  // The user's NCCL environment: environment.variables overlaid with the model's env (`--env` what-ifs).
  EnvMap user_env;
  std::vector<EnvEffect> env_effects;
  // Other work on the GPUs during the run, from the doctor's telemetry (none in a run without telemetry).
  ForeignActivity foreign;
  // GPUs with other work on them during the run: their slow numbers are attributed to that load. From the telemetry
  // when the run has it, else from the processes discovery listed.
  std::vector<int> busy_gpus;

  bool is_busy(int cuda_ordinal) const;
  // Env a collective ran under (user env + its own overrides).
  EnvMap collective_env(const CollectiveRef& point) const;
  // True when that env takes P2P away from some GPU pair of this machine.
  bool env_removes_p2p_somewhere(const EnvMap& env) const;
  // One line naming the other work on a GPU: "pid 4242 python3 (10.0 GiB)".
  std::string processes_text(int cuda_ordinal) const;
};

}  // namespace linkscope::diagnose
