#include "model/isolation.hpp"

#include <algorithm>

namespace linkscope::model {

namespace {

using nlohmann::json;

template <typename Enum, std::size_t N>
Enum enum_from(const JsonReader& reader, std::string_view key, const Enum (&values)[N],
               std::string_view (*name)(Enum)) {
  const std::string text = reader.string_or(key);
  for (Enum value : values) {
    if (name(value) == text) return value;
  }
  reader.fail(key, "unknown value \"" + text + "\"");
}

constexpr GroupOutcome kOutcomes[] = {GroupOutcome::kOk, GroupOutcome::kSlow, GroupOutcome::kHung};
constexpr GroupRole kRoles[] = {GroupRole::kEveryHost, GroupRole::kHalf, GroupRole::kWithGood, GroupRole::kAcross};
constexpr HostVerdict kVerdicts[] = {HostVerdict::kGood, HostVerdict::kSlow, HostVerdict::kHung, HostVerdict::kUnresolved};

int index_of(const std::vector<std::string>& names, const JsonReader& reader, const std::string& name) {
  const auto it = std::find(names.begin(), names.end(), name);
  if (it == names.end()) reader.fail("hosts", "unknown host \"" + name + "\"");
  return static_cast<int>(it - names.begin());
}

json membership_json(HostMembership m) { return {{"run_index", m.run}, {"group_index", m.group}}; }

HostMembership membership_from(const JsonReader& reader) {
  return {reader.small_int("run_index").value_or(-1), reader.small_int("group_index").value_or(-1)};
}

}  // namespace

std::string_view outcome_name(GroupOutcome outcome) {
  switch (outcome) {
    case GroupOutcome::kOk: return "ok";
    case GroupOutcome::kSlow: return "slow";
    case GroupOutcome::kHung: return "hung";
  }
  return "?";
}

std::string_view role_name(GroupRole role) {
  switch (role) {
    case GroupRole::kEveryHost: return "every-host";
    case GroupRole::kHalf: return "half";
    case GroupRole::kWithGood: return "with-good";
    case GroupRole::kAcross: return "across";
  }
  return "?";
}

std::string_view verdict_name(HostVerdict verdict) {
  switch (verdict) {
    case HostVerdict::kGood: return "good";
    case HostVerdict::kSlow: return "slow";
    case HostVerdict::kHung: return "hung";
    case HostVerdict::kUnresolved: return "unresolved";
  }
  return "?";
}

int IsolationReport::collectives() const {
  int count = 0;
  for (const auto& run : runs) count += static_cast<int>(run.groups.size());
  return count;
}

std::vector<int> IsolationReport::hosts_with(HostVerdict verdict) const {
  std::vector<int> found;
  for (std::size_t h = 0; h < per_host.size(); ++h) {
    if (per_host[h].verdict == verdict) found.push_back(static_cast<int>(h));
  }
  return found;
}

const IsolationGroup& IsolationReport::group(HostMembership at) const {
  return runs.at(static_cast<std::size_t>(at.run)).groups.at(static_cast<std::size_t>(at.group));
}

json to_json(const IsolationReport& report, const std::vector<std::string>& host_names) {
  const auto name = [&](int host) { return host_names.at(static_cast<std::size_t>(host)); };
  json runs = json::array();
  for (const auto& run : report.runs) {
    json groups = json::array();
    for (const auto& group : run.groups) {
      json hosts = json::array();
      for (int host : group.hosts) hosts.push_back(name(host));
      groups.push_back({{"hosts", hosts},
                        {"role", role_name(group.role)},
                        {"partner", group.partner >= 0 ? json(name(group.partner)) : json(nullptr)},
                        {"outcome", outcome_name(group.outcome)},
                        {"busbw_gbps", optional_json(group.busbw_gbps)},
                        {"reason", optional_json(group.reason)}});
    }
    runs.push_back({{"groups", groups}});
  }
  json hosts = json::array();
  for (std::size_t h = 0; h < report.per_host.size(); ++h) {
    const auto& mine = report.per_host[h];
    json memberships = json::array();
    for (const auto& m : mine.memberships) memberships.push_back(membership_json(m));
    hosts.push_back({{"host", name(static_cast<int>(h))},
                     {"verdict", verdict_name(mine.verdict)},
                     {"named_by", mine.named_by.run >= 0 ? membership_json(mine.named_by) : json(nullptr)},
                     {"inferred", mine.inferred},
                     {"groups", memberships}});
  }
  return {{"runner", report.runner},
          {"expected_gbps", optional_json(report.expected_gbps)},
          {"shortfall", report.shortfall},
          {"expected_from", report.expected_from},
          {"run_count", report.runs.size()},
          {"collective_count", report.collectives()},
          {"runs", runs},
          {"hosts", hosts},
          {"notes", report.notes}};
}

IsolationReport isolation_from_json(const JsonReader& r, const std::vector<std::string>& host_names) {
  IsolationReport report;
  report.hosts = static_cast<int>(host_names.size());
  report.runner = r.string_or("runner");
  report.expected_gbps = r.number("expected_gbps");
  report.shortfall = r.number("shortfall").value_or(0);
  report.expected_from = r.string_or("expected_from");
  for (const auto& run_reader : r.array("runs")) {
    IsolationRun run;
    for (const auto& g : run_reader.array("groups")) {
      IsolationGroup group;
      for (const auto& host : g.strings("hosts")) group.hosts.push_back(index_of(host_names, g, host));
      group.role = enum_from(g, "role", kRoles, role_name);
      if (const auto partner = g.string("partner")) group.partner = index_of(host_names, g, *partner);
      group.outcome = enum_from(g, "outcome", kOutcomes, outcome_name);
      group.busbw_gbps = g.number("busbw_gbps");
      group.reason = g.string("reason");
      run.groups.push_back(std::move(group));
    }
    report.runs.push_back(std::move(run));
  }
  report.per_host.resize(host_names.size());
  for (const auto& h : r.array("hosts")) {
    HostIsolation& mine = report.per_host.at(static_cast<std::size_t>(index_of(host_names, h, h.string_or("host"))));
    mine.verdict = enum_from(h, "verdict", kVerdicts, verdict_name);
    if (h.has("named_by") && !h.at("named_by").is_null()) mine.named_by = membership_from(h.object("named_by"));
    mine.inferred = h.boolean("inferred").value_or(false);
    for (const auto& m : h.array("groups")) mine.memberships.push_back(membership_from(m));
  }
  report.notes = r.strings("notes");
  r.skip({"run_count", "collective_count"});  // derived from the runs
  return report;
}

}  // namespace linkscope::model
