#pragma once
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "diagnose/evidence.hpp"

// What NCCL_* variables do to the paths NCCL may use (nccl-topology-spec.md §6.1 and §8).
namespace linkscope::diagnose {

using EnvMap = std::map<std::string, std::string>;

// NCCL path types in NCCL 2.28 order (a larger index is a worse path): LOC NVL NVB C2C PIX PXB P2C PXN PHB SYS.
std::optional<int> path_type_index(const std::string& name);
std::string path_type_name(int index);
// nvidia-smi's relation as an NCCL path type: "NV18" -> "NVL", "NODE" -> "PHB", others unchanged.
std::string path_type_of_relation(const std::string& relation);
// NCCL's default P2P level (PXB); the AMD <= 2 GPU exception (SYS) is not knowable from the Run.
int default_p2p_level();

// The P2P level the variables impose (NCCL_P2P_DISABLE=1 wins over NCCL_P2P_LEVEL), parsed as NCCL does;
// nullopt when neither variable changes it.
std::optional<int> p2p_level_override(const EnvMap& env);
// True when, under `env`, NCCL may not use P2P on a path of this type that it would use by default.
bool env_removes_p2p(const EnvMap& env, const std::string& path_type);

// One variable's effect, for the nccl-env-path-removed finding.
struct EnvEffect {
  std::string variable, value;
  std::string source;  // "environment", "model env"
  std::string effect;  // what it removes or forces, in one line
  Severity severity = Severity::kInfo;
  std::vector<std::pair<int, int>> pairs_losing_p2p;  // (rank a, rank b), a < b
};

// Effects of the user's variables on this machine (its GPU pairs, path types, NICs). Variables that change no
// path (NCCL_DEBUG, NCCL_TOPO_DUMP_FILE, NCCL_NVLS_ENABLE=0 set by machine policy) give no effect.
std::vector<EnvEffect> nccl_env_effects(const EnvMap& env, const std::string& source, const Evidence& evidence);

// True for the NCCL_* variables that change which paths, transports, algorithms or channels NCCL may use (the
// ones nccl_env_effects judges); NCCL_DEBUG, NCCL_TOPO_DUMP_FILE, NCCL_NVLS_ENABLE and the like are not.
bool is_path_variable(const std::string& name);

// True when `overrides` (a measurement's own env) sets a path variable to something other than `base` (the user's
// environment): a what-if run such as a ladder layer, slow on purpose.
bool is_what_if(const EnvMap& base, const EnvMap& overrides);

// `base` overlaid with `overrides`.
EnvMap merge_env(const EnvMap& base, const EnvMap& overrides);

// GPU pairs (a < b) with their NCCL path type: model paths when present, else the system relation.
std::vector<std::pair<std::pair<int, int>, std::string>> gpu_pair_path_types(const Evidence& evidence);

}  // namespace linkscope::diagnose
