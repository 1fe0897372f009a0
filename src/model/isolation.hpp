#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/json_read.hpp"

// The Run's `measurements.cross_host.isolation` (`cluster --isolate`): the runs of group collectives that found the
// slow or hung hosts, and why each host is judged as it is. cluster/isolation_plan fills it; docs/multi-node.md
// explains runs, collectives and verdicts.
namespace linkscope::model {

enum class GroupOutcome { kOk, kSlow, kHung };
std::string_view outcome_name(GroupOutcome outcome);  // "ok", "slow", "hung"

// Why a group is in a run.
enum class GroupRole {
  kEveryHost,  // the first run
  kHalf,       // half of a suspect group
  kWithGood,   // one suspect beside a host found good
  kAcross,     // two suspects of different groups, no host being known good
};
std::string_view role_name(GroupRole role);  // "every-host", "half", "with-good", "across"

struct IsolationGroup {
  std::vector<int> hosts;  // ascending host indices (into CrossHost::hosts)
  GroupRole role = GroupRole::kEveryHost;
  int partner = -1;        // kWithGood: the good host
  GroupOutcome outcome = GroupOutcome::kOk;
  std::optional<double> busbw_gbps;  // measured at the largest size, when the executor measured one
  std::optional<std::string> reason;  // why it is slow or hung, in the executor's words
};

struct IsolationRun {
  std::vector<IsolationGroup> groups;  // disjoint, measured at once
};

enum class HostVerdict { kGood, kSlow, kHung, kUnresolved };
std::string_view verdict_name(HostVerdict verdict);  // "good", "slow", "hung", "unresolved"

// One group a host was in.
struct HostMembership {
  int run = 0;    // index into IsolationReport::runs
  int group = 0;  // index into that run's groups
};

struct HostIsolation {
  HostVerdict verdict = HostVerdict::kUnresolved;
  // For a slow or hung host: the group that names it. Measured beside a good host (role kWithGood), or a group whose
  // other hosts were all found good elsewhere. -1 for good and unresolved hosts.
  HostMembership named_by{-1, -1};
  bool inferred = false;  // named_by had other suspects too, all of which were later found good
  std::vector<HostMembership> memberships;  // every group it was in, in run order
};

struct IsolationReport {
  int hosts = 0;
  std::vector<IsolationRun> runs;
  std::vector<HostIsolation> per_host;
  std::vector<std::string> notes;  // results that contradict each other (noise), why hosts stay unresolved
  // Set by the executor: what a group's busbw was judged against, and what ran the collectives.
  std::optional<double> expected_gbps;
  double shortfall = 0;  // a group below (1 - shortfall) x expected_gbps is slow
  // Where expected_gbps came from: "--expect-gbps", the fleet baseline's metric, or the NICs' rate (model).
  std::string expected_from;
  std::string runner;    // "NCCL", "simulated fabric FILE"

  int collectives() const;  // groups over all runs
  std::vector<int> hosts_with(HostVerdict verdict) const;
  const IsolationGroup& group(HostMembership at) const;
};

nlohmann::json to_json(const IsolationReport& report, const std::vector<std::string>& host_names);
IsolationReport isolation_from_json(const JsonReader& reader, const std::vector<std::string>& host_names);

}  // namespace linkscope::model
