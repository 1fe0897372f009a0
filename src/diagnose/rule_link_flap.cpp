// link-flap: a link fact changed between two cycles of a soak (doctor --soak, cluster --soak): a PCIe link that
// retrained to another width, NVLinks that went down or came back, an RDMA port whose state or rate changed. A link that changes state while the machine runs is failing, even
// when every single run looks healthy.
#include <fmt/format.h>

#include "diagnose/rules.hpp"
#include "diagnose/soak_changes.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_link_flap(const Context& context) {
  const auto& soak = context.evidence.run.measurements.soak;
  if (!soak) return std::nullopt;
  const auto changes = soak_state_changes(*soak);
  if (changes.empty()) return std::nullopt;
  Finding finding;
  finding.id = "link-flap";
  finding.severity = Severity::kError;
  for (const auto& change : changes) {
    finding.evidence.push_back(
        fmt::format("{}: {} -> {} at cycle {}", change.state, change.before, change.after, change.at_cycle));
  }
  finding.title = fmt::format("{} link change(s) during the soak ({}: {} -> {})", changes.size(),
                              changes.front().state, changes.front().before, changes.front().after);
  finding.explanation = "Link width, active NVLinks and NIC port states do not change on a healthy machine; a link "
                        "that retrains or drops while it runs will fail jobs intermittently.";
  finding.cause = "a marginal link: a riser, cable or connector, a GPU or switch port, or its power";
  finding.next_command = "nvidia-smi nvlink -s; nvidia-smi -q -d PCIE; ibstat; dmesg | grep -i -e aer -e nvrm -e xid -e mlx";
  return finding;
}

}  // namespace linkscope::diagnose
