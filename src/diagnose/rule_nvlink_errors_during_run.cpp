// nvlink-errors-during-run: NVLink error counters (NVML DL replay, recovery, CRC flit, per link) that grew while the
// doctor measured (measurements.telemetry). CRC errors and replays are retransmissions; a recovery is the link
// retraining, during which it carries nothing.
#include <algorithm>

#include <fmt/format.h>

#include "diagnose/counter_changes.hpp"
#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_nvlink_errors_during_run(const Context& context) {
  const auto& telemetry = context.evidence.run.measurements.telemetry;
  if (!telemetry) return std::nullopt;
  Finding finding;
  const auto changes = add_change_evidence(context.evidence, *telemetry, finding,
                                           [](const CounterChange& c) { return c.link.has_value(); });
  if (changes.empty()) return std::nullopt;
  const std::string recovery = model::link_counter_quantity(model::LinkCounter::kRecovery);
  const bool retrained = std::any_of(changes.begin(), changes.end(),
                                     [&](const CounterChange& c) { return c.quantity == recovery; });
  finding.id = "nvlink-errors-during-run";
  finding.severity = retrained ? Severity::kError : Severity::kWarning;
  finding.title = fmt::format("{}: NVLink errors while linkscope measured",
                              telemetry_gpu_label(context.evidence, *telemetry, changes.front().nvml_index));
  finding.explanation =
      retrained ? "A link recovered (retrained) during the run: while it retrains it carries nothing, so copies and "
                  "collectives over it stall; repeated recoveries point at a failing link."
                : "A link retransmitted flits (CRC errors, replays): data arrived intact, but every retry costs "
                  "bandwidth, so numbers over this link are lower than its rate allows.";
  finding.cause = "the NVLink (connector, cable, NVSwitch port) or the GPU's link: signal integrity";
  finding.next_command = fmt::format("nvidia-smi nvlink -e -i {0}; nvidia-smi nvlink -s -i {0}", changes.front().nvml_index);
  return finding;
}

}  // namespace linkscope::diagnose
