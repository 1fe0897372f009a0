// nccl-env-path-removed: NCCL_* variables in the user's environment (or the model's --env) that take paths away
// (P2P, SHM, NVB, IB, GDR) or force NCCL's choices (algorithm, protocol, channels). Quotes what the run measured
// under them, since those symptoms are explained here and not reported again.
#include <algorithm>

#include <fmt/format.h>

#include "diagnose/expectations.hpp"
#include "diagnose/measured_summary.hpp"
#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_nccl_env_path_removed(const Context& context) {
  if (context.env_effects.empty()) return std::nullopt;
  Finding finding;
  finding.id = "nccl-env-path-removed";
  const EnvEffect* strongest = nullptr;
  std::string unset;
  for (const auto& effect : context.env_effects) {
    finding.evidence.push_back(
        fmt::format("{}={} ({}): {}", effect.variable, effect.value, effect.source, effect.effect));
    if (strongest == nullptr || effect.severity > strongest->severity) strongest = &effect;
    if (effect.severity >= Severity::kWarning) unset += " -u " + effect.variable;
    for (const auto& [a, b] : effect.pairs_losing_p2p) {
      finding.gpus.push_back(a);
      finding.gpus.push_back(b);
    }
  }
  std::sort(finding.gpus.begin(), finding.gpus.end());
  finding.gpus.erase(std::unique(finding.gpus.begin(), finding.gpus.end()), finding.gpus.end());

  // What the run measured under these variables.
  const auto min_bytes = static_cast<std::uint64_t>(threshold(Threshold::kCollectivePlateauMinBytes));
  for (const auto& point : largest_collective_points(context.evidence, min_bytes)) {
    if (context.env_removes_p2p_somewhere(context.collective_env(point))) {
      finding.evidence.push_back("measured under it: " + collective_line(context.evidence, point));
    }
  }
  for (const auto& line : runtime_transport_lines(context.evidence, 4)) finding.evidence.push_back("observed: " + line);

  finding.severity = strongest->severity;
  finding.cause = fmt::format("{}={} set in the {}", strongest->variable, strongest->value, strongest->source);
  finding.title = fmt::format("{}={} {}", strongest->variable, strongest->value,
                              strongest->pairs_losing_p2p.empty() ? "changes NCCL's paths"
                                                                  : "takes P2P away from NCCL");
  finding.explanation =
      "NCCL reads these variables once per process. Left in a job's environment they silently take the fast path "
      "away from every collective (NCCL_P2P_DISABLE=1 turns NVLink P2P into host-memory SHM, about 1/12 of the "
      "bandwidth on 2 x H200) or stop NCCL from picking the best algorithm per size.";
  finding.next_command = unset.empty() ? "linkscope ladder" : "env" + unset + " linkscope ladder";
  return finding;
}

}  // namespace linkscope::diagnose
