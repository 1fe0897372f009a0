// bandwidth-below-expected: at the bandwidth plateau, a copy or a collective's busbw below the warning share of
// its link status rate (expectations table). Never judges latency-bound sizes. Symptoms with a known cause are
// left to that cause's finding: a busy GPU (noisy-measurement) or NCCL variables removing P2P
// (nccl-env-path-removed).
#include <set>

#include <fmt/format.h>

#include "diagnose/expectations.hpp"
#include "diagnose/measured_summary.hpp"
#include "diagnose/rules.hpp"
#include "core/text.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_bandwidth_below_expected(const Context& context) {
  const Evidence& evidence = context.evidence;
  Finding finding;
  finding.id = "bandwidth-below-expected";
  std::set<int> gpus;
  std::string first_copy;
  for (const auto& judgement : plateau_copies(evidence)) {
    const auto& p = *judgement.point;
    if (judgement.share >= judgement.warn_share || context.is_busy(p.src) || context.is_busy(p.dst)) continue;
    finding.evidence.push_back(copy_line(judgement) +
                               fmt::format("; expected about {}, flagged below {}", format_percent(judgement.expected_share),
                                           format_percent(judgement.warn_share)));
    gpus.insert(p.src);
    gpus.insert(p.dst);
    if (first_copy.empty()) first_copy = fmt::format("{}>{}", p.src, p.dst);
  }

  std::string first_collective;
  const auto rate = evidence.slowest_link_rate();
  const bool any_busy = !context.busy_gpus.empty();
  if (rate && rate->gbps > 0 && !any_busy) {
    const double warn = threshold(Threshold::kBusbwWarnShareOfLinkRate);
    const auto min_bytes = static_cast<std::uint64_t>(threshold(Threshold::kCollectivePlateauMinBytes));
    for (const auto& point : largest_collective_points(evidence, min_bytes)) {
      const double share = point.busbw() / rate->gbps;
      if (share >= warn || context.env_removes_p2p_somewhere(context.collective_env(point))) continue;
      finding.evidence.push_back(collective_line(evidence, point) +
                                 fmt::format("; expected about {}, flagged below {}",
                                             format_percent(threshold(Threshold::kBusbwShareOfLinkRate)),
                                             format_percent(warn)));
      if (first_collective.empty()) first_collective = point.op();
    }
  }
  if (finding.evidence.empty()) return std::nullopt;
  finding.gpus.assign(gpus.begin(), gpus.end());
  finding.severity = Severity::kWarning;
  finding.title = first_copy.empty() ? fmt::format("{} busbw is far below the link rate", first_collective)
                                     : "peer copies are far below the link rate";
  finding.explanation =
      "At large sizes a copy engine reaches about 80% of the link status rate, SM copies about 75% and NCCL busbw "
      "about 70% (2 x H200 anchors). Much less means the traffic is not using the links it should, or something "
      "slows an endpoint.";
  finding.cause = "traffic on a slower path than the topology suggests (P2P off, PCIe instead of NVLink), a "
                  "degraded link or GPU, or interference";
  finding.next_command = first_copy.empty()
                             ? fmt::format("linkscope ladder {}", first_collective)
                             : fmt::format("linkscope p2p --pairs {} -b 256M -e 1G", first_copy);
  return finding;
}

}  // namespace linkscope::diagnose
