// soak-metric-changed: over a soak's cycles (doctor --soak) a bandwidth drifted (a steady trend) or stepped (a
// sudden change the later cycles kept). A machine that slows while it runs (a link retraining, clocks held down by
// heat, a neighbour's job) looks healthy in any single run; this is what a soak is for.
#include <cmath>

#include <fmt/format.h>

#include "diagnose/rules.hpp"
#include "diagnose/soak_changes.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_soak_metric_changed(const Context& context) {
  const auto& soak = context.evidence.run.measurements.soak;
  if (!soak) return std::nullopt;
  const auto changes = soak_metric_changes(*soak);
  if (changes.empty()) return std::nullopt;
  Finding finding;
  finding.id = "soak-metric-changed";
  finding.severity = Severity::kWarning;
  bool fell = false;
  for (const auto& change : changes) {
    fell = fell || change.relative < 0;
    finding.evidence.push_back(fmt::format("{} {} {:+.1f}%: {:.2f} -> {:.2f} GB/s ({} cycle {})", change.metric,
                                           change.kind == "step" ? "stepped" : "drifted", 100 * change.relative,
                                           change.before / 1e9, change.after / 1e9,
                                           change.kind == "step" ? "from" : "by", change.at_cycle));
    if (finding.evidence.size() >= 8) break;
  }
  const MetricChange& first = changes.front();
  finding.title = fmt::format("{} metric(s) changed over {} soak cycles (largest: {} {:+.1f}%)", changes.size(),
                              soak->cycles.size(), first.kind, 100 * first.relative);
  finding.explanation =
      "Each cycle repeats the same steps on the same machine; an idle healthy machine gives the same numbers every "
      "time. A drift is a trend over the cycles, a step a change that the later cycles kept.";
  finding.cause = fell ? "the machine slowed while it ran: heat or power limits, a link that retrained narrower or "
                         "slower, or other work that started on it"
                       : "the machine sped up while it ran: other work that stopped, or clocks that recovered";
  finding.next_command = "linkscope report RUN.json (measurements.soak.cycles); nvidia-smi -q -d PERFORMANCE,CLOCK";
  finding.numbers["cycles"] = soak->cycles.size();
  finding.numbers["changes"] = changes.size();
  return finding;
}

}  // namespace linkscope::diagnose
