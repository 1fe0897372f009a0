// outside-fleet-baseline: numbers of this host worse than the fleet's hosts of its machine type (`--baseline`,
// src/fleet), beyond both the relative and the robust-z threshold; a machine type the baseline lacks is said, never
// passed in silence.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/text.hpp"
#include "model/fleet.hpp"
#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

namespace {

// The finding lists this many numbers, then how many more (a slow NVSwitch slows every pair of a host).
constexpr std::size_t kListed = 12;

}  // namespace

std::optional<Finding> rule_outside_fleet_baseline(const Context& context) {
  const model::Run& run = context.evidence.run;
  if (!run.fleet) return std::nullopt;
  const model::FleetComparison& fleet = *run.fleet;
  Finding finding;
  finding.id = "outside-fleet-baseline";
  finding.numbers = {{"machine_type", fleet.machine_type}, {"compared", fleet.metrics.size()},
                     {"outside", fleet.outside_count()}};
  if (!fleet.type_in_baseline || fleet.metrics.empty()) {
    finding.severity = Severity::kInfo;
    finding.title = !fleet.type_in_baseline
                        ? fmt::format("machine type not in the baseline {}: nothing judged against the fleet",
                                      fleet.baseline)
                        : fmt::format("no number of this run is in the baseline {} for its machine type", fleet.baseline);
    finding.evidence.push_back("machine type: " + fleet.machine_type);
    finding.explanation = "Hosts are judged only against hosts of their own machine type (GPU model and count, links, "
                          "NCCL version); this run has no fleet to be judged against.";
    finding.next_command = "linkscope baseline RUN.json... -o baseline.json  # with runs of this machine type";
    return finding;
  }
  std::vector<const model::FleetMetric*> outside;
  for (const auto& m : fleet.metrics) {
    if (m.outside) outside.push_back(&m);
  }
  if (outside.empty()) return std::nullopt;
  // Worst first.
  std::stable_sort(outside.begin(), outside.end(), [](const auto* a, const auto* b) {
    return std::fabs(a->relative) > std::fabs(b->relative);
  });
  finding.severity = Severity::kWarning;
  const model::FleetMetric& worst = *outside.front();
  finding.title = fmt::format("{} number(s) of {} outside the fleet baseline; worst: {} {} {:+.0f}% of the fleet median",
                              outside.size(), fleet.host.empty() ? "this host" : fleet.host,
                              worst.subject.empty() ? "host" : worst.subject, worst.metric, worst.relative * 100.0);
  for (std::size_t i = 0; i < outside.size() && i < kListed; ++i) finding.evidence.push_back(model::fleet_metric_text(fleet, *outside[i]));
  if (outside.size() > kListed) finding.evidence.push_back(fmt::format("and {} more", outside.size() - kListed));
  finding.evidence.push_back(fmt::format("machine type: {} ({} hosts in the baseline)", fleet.machine_type,
                                         fleet.baseline_hosts));
  finding.numbers["worst_relative"] = worst.relative;
  finding.numbers["worst_value"] = worst.value;
  finding.numbers["worst_fleet_median"] = worst.fleet.median;
  finding.explanation = fmt::format(
      "Identical machines should measure alike: these numbers are more than {} worse than the median of the fleet's "
      "hosts of this machine type and, where the fleet has spread, more than {:g} robust standard deviations "
      "(1.4826 x MAD) from it.",
      format_percent(fleet.relative_threshold), fleet.z_threshold);
  finding.cause = "a fault of this host the fleet does not share: a degraded link, a throttled or busy GPU, a "
                  "different configuration (the other findings of this run say which)";
  finding.next_command = "linkscope doctor --full  # on this host; then compare its run with a healthy host's";
  return finding;
}

}  // namespace linkscope::diagnose
