#include "report/isolation_text.hpp"

#include <fmt/format.h>

#include "core/text.hpp"

namespace linkscope::report {

namespace {

using model::HostVerdict;

std::string group_text(const model::IsolationGroup& group, const std::vector<std::string>& names) {
  std::vector<std::string> hosts;
  for (int host : group.hosts) hosts.push_back(names.at(static_cast<std::size_t>(host)));
  const std::string who = hosts.size() <= 4 ? join(hosts, ", ")
                                            : fmt::format("{} hosts, {} .. {}", hosts.size(), hosts.front(), hosts.back());
  std::string out = fmt::format("[{}] {}", who, model::outcome_name(group.outcome));
  if (group.busbw_gbps) out += " " + format_gbps(*group.busbw_gbps);
  return out;
}

}  // namespace

std::string host_reason(const model::IsolationReport& report, int host, const std::vector<std::string>& names) {
  const model::HostIsolation& mine = report.per_host.at(static_cast<std::size_t>(host));
  std::string why;
  if (mine.named_by.run >= 0) {
    const model::IsolationGroup& group = report.group(mine.named_by);
    if (group.role == model::GroupRole::kWithGood) {
      why = fmt::format("beside {} (found good) in run {}: {}", names.at(static_cast<std::size_t>(group.partner)),
                        mine.named_by.run + 1, outcome_name(group.outcome));
    } else {
      std::vector<std::string> others;
      for (int other : group.hosts) {
        if (other != host) others.push_back(names.at(static_cast<std::size_t>(other)));
      }
      why = fmt::format("its group of run {} was {} and the others in it ({}) were found good",
                        mine.named_by.run + 1, outcome_name(group.outcome), fmt::join(others, ", "));
    }
  } else if (mine.verdict == model::HostVerdict::kUnresolved) {
    why = "every group it was in was slow or hung and no run told it apart from the others there";
  }
  std::vector<std::string> runs;
  for (const auto& m : mine.memberships) {
    const auto& group = report.group(m);
    runs.push_back(fmt::format("{} ({}, {} hosts)", m.run + 1, outcome_name(group.outcome), group.hosts.size()));
  }
  return fmt::format("{}{}{}runs {}", verdict_name(mine.verdict), why.empty() ? "" : ": ", why.empty() ? "; " : why + "; ",
                     fmt::join(runs, ", "));
}

std::string render_isolation_text(const model::IsolationReport& report, const std::vector<std::string>& names) {
  std::string out = fmt::format(
      "Isolation (cluster --isolate): {} run(s), {} collective(s); a run is one round of all_reduces on disjoint host "
      "groups at once; collectives through {}",
      report.runs.size(), report.collectives(), report.runner.empty() ? "?" : report.runner);
  if (report.expected_gbps) {
    out += fmt::format("; a group is slow below {} busbw ({} expected, less {}{})",
                       format_gbps(*report.expected_gbps * (1 - report.shortfall)), format_gbps(*report.expected_gbps),
                       format_percent(report.shortfall),
                       report.expected_from.empty() ? "" : "; expected from " + report.expected_from);
  }
  out += ":\n";
  for (std::size_t r = 0; r < report.runs.size(); ++r) {
    std::vector<std::string> groups;
    for (const auto& group : report.runs[r].groups) groups.push_back(group_text(group, names));
    out += fmt::format("  run {}: {}\n", r + 1, join(groups, "; "));
  }
  bool named = false;
  for (const HostVerdict verdict : {HostVerdict::kHung, HostVerdict::kSlow, HostVerdict::kUnresolved}) {
    for (int host : report.hosts_with(verdict)) {
      if (!named) out += "Suspected hosts:\n";
      named = true;
      out += fmt::format("  {}: {}\n", names.at(static_cast<std::size_t>(host)), host_reason(report, host, names));
    }
  }
  if (!named) out += "Suspected hosts: none\n";
  for (const auto& note : report.notes) out += "  note: " + note + "\n";
  return out;
}

}  // namespace linkscope::report
