// link-flap: a link fact changed between two cycles of a soak (doctor --soak, cluster --soak): a PCIe link that
// retrained to another width, NVLinks that went down or came back, an RDMA port whose state or rate changed; or an
// NVLink error counter that grew between two cycles (a warning while the links stay up). A link that changes state
// while the machine runs is failing, even when every single run looks healthy.
#include <fmt/format.h>

#include "diagnose/rules.hpp"
#include "diagnose/soak_changes.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_link_flap(const Context& context) {
  const auto& soak = context.evidence.run.measurements.soak;
  if (!soak) return std::nullopt;
  const auto changes = soak_state_changes(*soak);
  const auto rises = soak_counter_rises(*soak);
  if (changes.empty() && rises.empty()) return std::nullopt;
  Finding finding;
  finding.id = "link-flap";
  // A link that changed state is failing; error counters that grow on links that stay up are a warning of it.
  finding.severity = changes.empty() ? Severity::kWarning : Severity::kError;
  for (const auto& change : changes) {
    finding.evidence.push_back(
        fmt::format("{}: {} -> {} at cycle {}", change.state, change.before, change.after, change.at_cycle));
  }
  for (const auto& rise : rises) {
    finding.evidence.push_back(fmt::format("{}: {} -> {} (+{}) at cycle {}", rise.counter, rise.before, rise.after,
                                           rise.after - rise.before, rise.at_cycle));
  }
  if (!changes.empty()) {
    finding.title = fmt::format("{} link change(s) during the soak ({}: {} -> {})", changes.size(),
                                changes.front().state, changes.front().before, changes.front().after);
    if (!rises.empty()) finding.title += fmt::format("; {} error counter(s) grew", rises.size());
  } else {
    finding.title = fmt::format("{} link error counter(s) grew during the soak ({}: +{})", rises.size(),
                                rises.front().counter, rises.front().after - rises.front().before);
  }
  finding.explanation = "Link width, active NVLinks and NIC port states do not change on a healthy machine, and its "
                        "link error counters do not grow; a link that retrains, drops or keeps erroring while it "
                        "runs will fail jobs intermittently.";
  finding.cause = "a marginal link: a riser, cable or connector, a GPU or switch port, or its power";
  finding.next_command = "nvidia-smi nvlink -s; nvidia-smi nvlink -e; nvidia-smi -q -d PCIE; ibstat; "
                         "dmesg | grep -i -e aer -e nvrm -e xid -e mlx";
  return finding;
}

}  // namespace linkscope::diagnose
