#include "diagnose/context.hpp"

#include <algorithm>

#include "core/text.hpp"

namespace linkscope::diagnose {

Context::Context(const model::Run& run) : evidence(run), foreign(find_foreign_activity(run)) {
  user_env = merge_env(evidence.env, evidence.topology.env);
  // Variables interact (SHM_DISABLE matters only without P2P), so judge the merged env, then name each source.
  env_effects = nccl_env_effects(user_env, "environment", evidence);
  for (auto& effect : env_effects) {
    const auto it = evidence.env.find(effect.variable);
    if (it == evidence.env.end() || it->second != effect.value) effect.source = "model env (--env)";
  }
  busy_gpus = foreign.watched() ? foreign.busy_ordinals() : evidence.busy_ordinals();
}

bool Context::is_busy(int cuda_ordinal) const {
  return std::find(busy_gpus.begin(), busy_gpus.end(), cuda_ordinal) != busy_gpus.end();
}

EnvMap Context::collective_env(const CollectiveRef& point) const { return merge_env(user_env, point.series->env); }

bool Context::env_removes_p2p_somewhere(const EnvMap& env) const {
  for (const auto& [pair, type] : gpu_pair_path_types(evidence)) {
    if (env_removes_p2p(env, type)) return true;
  }
  return false;
}

std::string Context::processes_text(int cuda_ordinal) const {
  if (foreign.watched()) return foreign.text(cuda_ordinal);
  const model::Gpu* gpu = evidence.gpu(cuda_ordinal);
  if (gpu == nullptr || !gpu->processes.has_value()) return "";
  std::string text;
  for (const auto& process : *gpu->processes) {
    if (named_like_linkscope(process)) continue;
    if (!text.empty()) text += ", ";
    text += "pid " + std::to_string(process.pid) + (process.name.empty() ? "" : " " + process.name);
    if (process.used_memory_bytes) text += " (" + format_bytes(static_cast<std::uint64_t>(*process.used_memory_bytes)) + ")";
  }
  return text;
}

}  // namespace linkscope::diagnose
