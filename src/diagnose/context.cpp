#include "diagnose/context.hpp"

#include <algorithm>

#include "core/text.hpp"

namespace linkscope::diagnose {

bool Context::is_busy(int cuda_ordinal) const {
  return std::find(busy_gpus.begin(), busy_gpus.end(), cuda_ordinal) != busy_gpus.end();
}

EnvMap Context::collective_env(const CollectivePoint& point) const { return merge_env(user_env, point.env); }

bool Context::env_removes_p2p_somewhere(const EnvMap& env) const {
  for (const auto& [pair, type] : gpu_pair_path_types(evidence)) {
    if (env_removes_p2p(env, type)) return true;
  }
  return false;
}

std::string Context::processes_text(int cuda_ordinal) const {
  const GpuFacts* gpu = evidence.gpu(cuda_ordinal);
  if (gpu == nullptr) return "";
  std::string text;
  for (const auto& process : gpu->processes) {
    if (!text.empty()) text += ", ";
    text += "pid " + std::to_string(process.pid) + (process.name.empty() ? "" : " " + process.name);
    if (process.used_memory_bytes) text += " (" + format_bytes(static_cast<std::uint64_t>(*process.used_memory_bytes)) + ")";
  }
  return text;
}

Context make_context(const RunDocument& run) {
  Context context;
  context.evidence = collect_evidence(run);
  context.user_env = merge_env(context.evidence.env, context.evidence.model_env);
  // Variables interact (SHM_DISABLE matters only without P2P), so judge the merged env, then name each source.
  context.env_effects = nccl_env_effects(context.user_env, "environment", context.evidence);
  for (auto& effect : context.env_effects) {
    const auto it = context.evidence.env.find(effect.variable);
    if (it == context.evidence.env.end() || it->second != effect.value) effect.source = "model env (--env)";
  }
  context.busy_gpus = context.evidence.busy_ordinals();
  if (run.system.is_object() && run.system.contains("host_differences")) context.host_differences = run.system["host_differences"];
  if (run.measurements.is_object() && run.measurements.contains("cross_host")) context.cross_host = run.measurements["cross_host"];
  return context;
}

}  // namespace linkscope::diagnose
