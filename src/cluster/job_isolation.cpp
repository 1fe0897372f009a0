#include "cluster/job_isolation.hpp"

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cluster/collective_runner.hpp"
#include "cluster/isolation_plan.hpp"
#include "cluster/representatives.hpp"
#include "core/text.hpp"
#include "model/collectives.hpp"
#include "report/isolation_text.hpp"

namespace linkscope::cluster {

namespace {

using nlohmann::json;

// The lowest member's judgement of its group, sent to rank 0.
json judge(const MeasuredSide& side, std::size_t group, const IsolationExpectation& expectation) {
  std::optional<double> busbw;
  if (side.series) {
    if (const auto* point = model::largest_measured_point(*side.series)) busbw = point->busbw_gbps;
  }
  std::string outcome = "ok";
  std::optional<std::string> reason = side.reason;
  const double floor = expectation.gbps * (1 - expectation.shortfall);
  if (side.status == "timeout") {
    outcome = "hung";
  } else if (side.status != "ok") {
    outcome = "slow";
    reason = "failed: " + side.reason.value_or(side.status);
  } else if (!busbw || *busbw < floor) {
    outcome = "slow";
    reason = busbw ? fmt::format("busbw {} below {}", format_gbps(*busbw), format_gbps(floor))
                   : std::string("no size was measured");
  }
  return {{"group", group}, {"outcome", outcome}, {"busbw_gbps", model::optional_json(busbw)},
          {"reason", model::optional_json(reason)}};
}

model::GroupOutcome outcome_from(const std::string& name) {
  if (name == "ok") return model::GroupOutcome::kOk;
  return name == "hung" ? model::GroupOutcome::kHung : model::GroupOutcome::kSlow;
}

// The planner counts the measured hosts only; the Run names every host of the roster.
model::IsolationReport on_roster_hosts(model::IsolationReport report, const std::vector<int>& measured, int hosts) {
  const auto roster_host = [&](int i) { return measured.at(static_cast<std::size_t>(i)); };
  for (auto& run : report.runs) {
    for (auto& group : run.groups) {
      for (int& host : group.hosts) host = roster_host(host);
      if (group.partner >= 0) group.partner = roster_host(group.partner);
    }
  }
  std::vector<model::HostIsolation> per_host(static_cast<std::size_t>(hosts));
  for (std::size_t i = 0; i < report.per_host.size(); ++i) per_host[static_cast<std::size_t>(measured[i])] = report.per_host[i];
  report.per_host = per_host;
  report.hosts = hosts;
  return report;
}

// The cross-host section of an isolation before its outcome: every host of the roster, the sizes.
model::CrossHost isolation_section(const Roster& roster, const CrossHostOptions& options) {
  model::CrossHost cross;
  for (const auto& host : roster.hosts) cross.hosts.push_back(host.name);
  cross.schedule = "isolate";
  cross.sizes_bytes = options.sizes;
  return cross;
}

// Rank 0's choice, in the order of IsolationOptions; the reasons each source was passed over go to `why_not`.
std::optional<IsolationExpectation> choose_expectation(const IsolationOptions& isolation, const HostsComparison& hosts,
                                                       const std::vector<Representative>& chosen,
                                                       std::uint64_t largest_bytes, std::vector<std::string>& why_not) {
  if (isolation.given) return isolation.given;
  std::string why;
  if (isolation.baseline != nullptr) {
    if (auto from_fleet = baseline_expectation(*isolation.baseline, isolation.baseline_name, isolation.machine_type,
                                               largest_bytes, why)) {
      return from_fleet;
    }
    why_not.push_back(why);  // kept as a note when the NICs' rate is used instead
  }
  if (auto from_nics = nic_expectation(hosts, chosen, why)) return from_nics;
  why_not.push_back(fmt::format("no --expect-gbps{}, and the NICs' rate cannot stand in: {}",
                                isolation.baseline != nullptr ? "" : " and no --baseline", why));
  return std::nullopt;
}

}  // namespace

std::optional<model::CrossHost> isolate_slow_hosts(ClusterSession& session, const HostsComparison* hosts,
                                                   const CrossHostOptions& options, const IsolationOptions& isolation,
                                                   runtime::NcclDebugCapture& capture) {
  const Roster& roster = session.roster();
  std::string chosen_text;
  std::vector<std::string> notes;
  if (session.is_root()) {
    json chosen = json::array();
    const auto representatives = choose_representatives(roster, *hosts);
    for (const auto& r : representatives) chosen.push_back({{"rank", r.rank}, {"reason", r.reason}});
    json expected = nullptr;
    if (const auto e = choose_expectation(isolation, *hosts, representatives,
                                          options.sizes.empty() ? 0 : options.sizes.back(), notes)) {
      expected = {{"gbps", e->gbps}, {"shortfall", e->shortfall}, {"from", e->from}};
    }
    chosen_text = json{{"hosts", chosen}, {"expectation", expected}}.dump();
  }
  const json plan = json::parse(session.broadcast(chosen_text, "sending who measures for each host"));
  const json& chosen = plan.at("hosts");
  if (plan.at("expectation").is_null()) {  // every rank stops here; rank 0 says why
    if (!session.is_root()) return std::nullopt;
    model::CrossHost cross = isolation_section(roster, options);
    cross.isolation = model::IsolationReport{};
    cross.isolation->hosts = static_cast<int>(roster.hosts.size());
    cross.isolation->notes = notes;
    return cross;
  }
  const IsolationExpectation expectation{plan["expectation"].at("gbps").get<double>(),
                                         plan["expectation"].at("shortfall").get<double>(),
                                         plan["expectation"].at("from").get<std::string>()};
  std::vector<int> measured, representative;  // per planner host: its roster host and the rank measuring for it
  for (std::size_t h = 0; h < chosen.size(); ++h) {
    const int rank = chosen[h].at("rank").get<int>();
    if (rank < 0) {
      notes.push_back(fmt::format("{} is left out of the isolation: {}", roster.hosts[h].name,
                                  chosen[h].at("reason").get<std::string>()));
      continue;
    }
    measured.push_back(static_cast<int>(h));
    representative.push_back(rank);
  }
  const int me = session.rank();
  const int device = roster.ranks.at(static_cast<std::size_t>(me)).cuda_device.value_or(-1);
  // How long a member may still be busy with its group when another reaches the next step: one group's sizes, its
  // set-up, and the watchdog of a hung one.
  const double group_work_s = static_cast<double>(options.sizes.size()) * (3 * options.max_time_s + 1) + 15 +
                              options.timeout_s;
  std::optional<IsolationPlanner> planner;
  if (session.is_root()) planner.emplace(static_cast<int>(measured.size()));

  for (int run = 1;; ++run) {
    std::string plan_text;
    if (planner) {
      json groups = json::array();
      for (const auto& group : planner->next_run()) groups.push_back(group.hosts);
      plan_text = groups.dump();
    }
    const json groups = json::parse(session.broadcast(plan_text, fmt::format("sending isolation run {}", run)));
    if (groups.empty()) break;
    if (session.is_root() && !options.quiet) {
      std::fprintf(stderr, "linkscope cluster: isolation run %d: all_reduce in %zu group(s) at once\n", run, groups.size());
    }
    json mine = nullptr;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      std::vector<int> members;
      for (int host : groups[g].get<std::vector<int>>()) members.push_back(representative.at(static_cast<std::size_t>(host)));
      std::sort(members.begin(), members.end());
      if (std::find(members.begin(), members.end(), me) == members.end()) continue;
      const std::string what = fmt::format("isolation run {}, group {} ({} hosts)", run, g + 1, members.size());
      const MeasuredSide side = measure_group(session, capture, options, coll::CollectiveOp::kAllReduce, members, device, what);
      if (me == members.front()) mine = judge(side, g, expectation);
    }
    const auto texts = session.gather_from_all(mine.dump(), fmt::format("collecting isolation run {}", run), group_work_s);
    if (!planner) continue;
    std::vector<model::IsolationGroup> results(groups.size());
    for (const auto& text : texts) {
      const json result = json::parse(text);
      if (result.is_null()) continue;
      auto& group = results.at(result.at("group").get<std::size_t>());
      group.outcome = outcome_from(result.at("outcome").get<std::string>());
      if (!result.at("busbw_gbps").is_null()) group.busbw_gbps = result.at("busbw_gbps").get<double>();
      if (!result.at("reason").is_null()) group.reason = result.at("reason").get<std::string>();
    }
    planner->record(results);
  }
  if (!planner) return std::nullopt;

  model::CrossHost cross = isolation_section(roster, options);
  cross.notes = notes;
  model::IsolationReport report = on_roster_hosts(planner->report(), measured, static_cast<int>(roster.hosts.size()));
  report.expected_gbps = expectation.gbps;
  report.shortfall = expectation.shortfall;
  report.expected_from = expectation.from;
  report.runner = collective_runner().name();
  for (const auto verdict : {model::HostVerdict::kHung, model::HostVerdict::kSlow}) {
    for (int host : report.hosts_with(verdict)) {
      model::SlowCulprit culprit;
      culprit.kind = verdict == model::HostVerdict::kHung ? "failed" : "host";
      culprit.host = host;
      culprit.measured_gbps = report.group(report.per_host[static_cast<std::size_t>(host)].named_by).busbw_gbps;
      culprit.reference_gbps = expectation.gbps;
      culprit.evidence = fmt::format("{} (cluster --isolate): {}", cross.hosts[static_cast<std::size_t>(host)],
                                     report::host_reason(report, host, cross.hosts));
      cross.slow.push_back(culprit);
    }
  }
  cross.isolation = std::move(report);
  return cross;
}

}  // namespace linkscope::cluster
