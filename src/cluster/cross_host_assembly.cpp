#include "cluster/cross_host_assembly.hpp"

#include <algorithm>
#include <array>
#include <map>

#include <fmt/format.h>

#include "cluster/cross_host.hpp"
#include "core/text.hpp"

namespace linkscope::cluster {

namespace {

using nlohmann::json;

json side_to_json(const MeasuredSide& s) {
  json hints = json::array();
  for (const auto& hint : s.hints) hints.push_back(model::to_json(hint));
  return {{"round", s.round},
          {"a", s.a},
          {"b", s.b},
          {"side", s.side},
          {"rank", s.rank},
          {"cuda_device", s.cuda_device},
          {"pci_bdf", s.pci_bdf},
          {"nic", model::string_or_null(s.nic)},
          {"nic_reason", s.nic_reason},
          {"transport", model::string_or_null(s.transport)},
          {"hints", std::move(hints)},
          {"status", s.status},
          {"reason", model::optional_json(s.reason)},
          {"series", s.series ? model::to_json(*s.series) : json(nullptr)}};
}

MeasuredSide side_from_json(const model::JsonReader& r) {
  MeasuredSide s;
  s.round = r.small_int("round").value_or(0);
  s.a = r.small_int("a").value_or(0);
  s.b = r.small_int("b").value_or(0);
  s.side = r.small_int("side").value_or(0);
  s.rank = r.small_int("rank").value_or(-1);
  s.cuda_device = r.small_int("cuda_device").value_or(-1);
  s.pci_bdf = r.string_or("pci_bdf");
  s.nic = r.string_or("nic");
  s.nic_reason = r.string_or("nic_reason");
  s.transport = r.string_or("transport");
  for (const auto& hint : r.array("hints")) s.hints.push_back(model::hint_from_json(hint));
  s.status = r.string_or("status", "error");
  s.reason = r.string("reason");
  if (r.has("series")) s.series = model::series_from_json(r.object("series"));
  return s;
}

model::CrossHostEndpoint endpoint_of(const MeasuredSide& side, int host) {
  model::CrossHostEndpoint e;
  e.host = host;
  e.rank = side.rank;
  e.cuda_device = side.cuda_device;
  e.gpu_bdf = side.pci_bdf;
  e.nic = side.nic;
  e.nic_reason = side.nic_reason;
  e.transport = side.transport;
  e.hints = side.hints;
  return e;
}

// Both ends of every pair, in the order the plan ran them; a missing end is an error naming its rank.
void add_pairs(model::CrossHost& result, const Roster& roster, const CrossHostPlan& plan,
               const std::vector<RankCrossHostResults>& ranks) {
  std::map<std::pair<int, int>, std::array<const MeasuredSide*, 2>> sides;
  for (const auto& mine : ranks) {
    for (const auto& side : mine.pairs) sides[{side.a, side.b}][static_cast<std::size_t>(side.side)] = &side;
  }
  for (std::size_t r = 0; r < plan.rounds.size(); ++r) {
    for (const auto& [a, b] : plan.rounds[r]) {
      model::CrossHostPair pair;
      pair.round = static_cast<int>(r);
      const auto& both = sides[{a, b}];
      for (int end = 0; end < 2; ++end) {
        const MeasuredSide* side = both[static_cast<std::size_t>(end)];
        const int host = end == 0 ? a : b;
        model::CrossHostEndpoint& endpoint = end == 0 ? pair.a : pair.b;
        if (side == nullptr) {
          pair.status = "error";
          pair.reason = fmt::format("no result from {}", roster.rank_label(plan.representatives[static_cast<std::size_t>(host)]));
          endpoint.host = host;
          continue;
        }
        endpoint = endpoint_of(*side, host);
        if (status_severity(side->status) > status_severity(pair.status)) {
          pair.status = side->status;
          pair.reason = side->reason.value_or(side->status);
        }
        if (side->series) pair.series = side->series;
      }
      summarize_pair(pair);
      result.pairs.push_back(pair);
    }
  }
}

// The all_reduce's worst status over every rank, its series, and the transport each host's first rank used.
void add_all_reduce(model::CrossHost& result, const Roster& roster, const CrossHostPlan& plan,
                    const std::vector<RankCrossHostResults>& ranks) {
  if (!plan.all_reduce) {
    result.all_reduce_status = "not run";
    result.all_reduce_reason = plan.all_reduce_reason;
    return;
  }
  result.all_reduce_status = "ok";
  std::vector<std::string> seen_hosts;
  for (std::size_t rank = 0; rank < ranks.size(); ++rank) {
    if (!ranks[rank].all_reduce) continue;
    const MeasuredSide& side = *ranks[rank].all_reduce;
    if (status_severity(side.status) > status_severity(result.all_reduce_status)) {
      result.all_reduce_status = side.status;
      result.all_reduce_reason = fmt::format("{}: {}", roster.rank_label(static_cast<int>(rank)), side.reason.value_or(side.status));
    }
    if (side.series) result.all_reduce = side.series;
    const std::string host = roster.host_of(static_cast<int>(rank)).name;
    if (std::find(seen_hosts.begin(), seen_hosts.end(), host) != seen_hosts.end()) continue;
    seen_hosts.push_back(host);
    const std::string transport = side.transport.empty() ? "?" : side.transport;
    result.all_reduce_transports.push_back(!side.nic.empty() ? fmt::format("{}: {} via {}", host, transport, side.nic)
                                                             : fmt::format("{}: {} ({})", host, transport, side.nic_reason));
  }
}

}  // namespace

json rank_results_to_json(const RankCrossHostResults& results) {
  json pairs = json::array();
  for (const auto& side : results.pairs) pairs.push_back(side_to_json(side));
  return {{"pairs", pairs}, {"all_reduce", results.all_reduce ? side_to_json(*results.all_reduce) : json(nullptr)}};
}

RankCrossHostResults rank_results_from_json(const model::JsonReader& reader) {
  RankCrossHostResults results;
  for (const auto& side : reader.array("pairs")) results.pairs.push_back(side_from_json(side));
  if (reader.has("all_reduce")) results.all_reduce = side_from_json(reader.object("all_reduce"));
  return results;
}

model::CrossHost assemble_cross_host(const Roster& roster, const HostsComparison* hosts, const std::string& schedule,
                                     const std::vector<std::uint64_t>& sizes, const CrossHostPlan& plan,
                                     const std::vector<RankCrossHostResults>& ranks) {
  model::CrossHost result;
  for (const auto& host : roster.hosts) result.hosts.push_back(host.name);
  result.schedule = schedule;
  result.sizes_bytes = sizes;
  result.notes = plan.notes;
  add_pairs(result, roster, plan, ranks);
  add_all_reduce(result, roster, plan, ranks);
  result.slow = find_slow(result, hosts);

  // Put the all_reduce next to the slowest pair: a ring cannot run faster than its slowest hop.
  const model::CrossHostPair* slowest = nullptr;
  for (const auto& pair : result.pairs) {
    if (pair.bandwidth_gbps && (slowest == nullptr || *pair.bandwidth_gbps < *slowest->bandwidth_gbps)) slowest = &pair;
  }
  const model::CollectivePoint* point = result.all_reduce ? model::largest_measured_point(*result.all_reduce) : nullptr;
  if (point != nullptr && point->busbw_gbps && slowest != nullptr) {
    result.notes.push_back(fmt::format("all_reduce busbw {} at {} over {} ranks; the slowest host pair, {} <-> {}, moved {} "
                                       "per direction",
                                       format_gbps(*point->busbw_gbps), format_bytes(point->bytes),
                                       result.all_reduce->nranks, result.hosts[static_cast<std::size_t>(slowest->a.host)],
                                       result.hosts[static_cast<std::size_t>(slowest->b.host)],
                                       format_gbps(*slowest->bandwidth_gbps)));
  }
  return result;
}

}  // namespace linkscope::cluster
