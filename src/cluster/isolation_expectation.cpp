#include "cluster/isolation_expectation.hpp"

#include <fmt/format.h>

#include "cluster/cross_host.hpp"
#include "core/size.hpp"
#include "core/text.hpp"
#include "diagnose/expectations.hpp"
#include "fleet/fleet_judge.hpp"
#include "model/link_rate.hpp"

namespace linkscope::cluster {

IsolationExpectation given_expectation(double gbps) {
  return {gbps, kIsolationShortfall, "--expect-gbps"};
}

std::optional<IsolationExpectation> baseline_expectation(const fleet::Baseline& baseline,
                                                         const std::string& baseline_name,
                                                         const std::string& machine_type, std::uint64_t bytes,
                                                         std::string& why_not) {
  const auto type = baseline.types.find(machine_type);
  if (type == baseline.types.end()) {
    why_not = fmt::format("the baseline {} has no hosts of this machine type ({})", baseline_name, machine_type);
    return std::nullopt;
  }
  const std::string wanted[] = {fleet::host_group_all_reduce_metric(bytes), fleet::host_pair_metric(bytes)};
  for (const std::string& metric : wanted) {
    const auto found = type->second.metrics.find(fleet::metric_key(fleet::kCrossHostCategory, metric));
    if (found == type->second.metrics.end() || !(found->second.spread.median > 0)) continue;
    const model::FleetSpread& spread = found->second.spread;
    const double relative = diagnose::threshold(diagnose::Threshold::kFleetRelativeDeviation);
    const double z = diagnose::threshold(diagnose::Threshold::kFleetRobustZ);
    const double floor = fleet::outside_floor(spread, relative, z);
    return IsolationExpectation{
        spread.median, 1 - floor / spread.median,
        fmt::format("baseline {}: {} of {} (median of {} value(s), MAD {}; slow beyond both {} below it and robust z "
                    "{:g})",
                    baseline_name, metric, machine_type, spread.count, format_gbps(spread.mad),
                    format_percent(relative), z)};
  }
  why_not = fmt::format("the baseline {} has no cross-host numbers at {} for {} (build it from `cluster` runs with "
                        "the same -e)",
                        baseline_name, format_bytes(bytes), machine_type);
  return std::nullopt;
}

std::optional<IsolationExpectation> nic_expectation(const HostsComparison& hosts,
                                                    const std::vector<Representative>& chosen, std::string& why_not) {
  std::optional<model::LinkRate> slowest;
  std::string slowest_host;
  for (std::size_t h = 0; h < chosen.size(); ++h) {
    if (chosen[h].rank < 0) continue;
    const HostReport* host = h < hosts.hosts.size() ? &hosts.hosts[h] : nullptr;
    const std::string name = host ? host->name : fmt::format("host {}", h);
    if (chosen[h].nic.empty() || !host || !host->system) {
      why_not = fmt::format("no NIC is known near the measuring GPU of {}", name);
      return std::nullopt;
    }
    const auto rate = model::named_nic_rate(*host->system, chosen[h].nic);
    if (!rate) {
      why_not = fmt::format("the rate of {} on {} is unknown", chosen[h].nic, name);
      return std::nullopt;
    }
    if (!slowest || rate->gbps < slowest->gbps) {
      slowest = rate;
      slowest_host = name;
    }
  }
  if (!slowest) {
    why_not = "no host has a measuring GPU";
    return std::nullopt;
  }
  return IsolationExpectation{
      slowest->gbps, 1 - kNicRateShare,
      fmt::format("the NICs' rate (model: a ring over hosts, one GPU each, runs at its slowest NIC's port rate): {} of "
                  "{}; slow below {}",
                  slowest->basis, slowest_host, format_percent(kNicRateShare))};
}

}  // namespace linkscope::cluster
