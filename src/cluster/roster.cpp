#include "cluster/roster.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/text.hpp"
#include "core/error.hpp"

namespace linkscope::cluster {

namespace {


std::string quoted_arguments(const std::vector<std::string>& arguments) {
  std::vector<std::string> quoted;
  for (const auto& argument : arguments) {
    const bool plain = !argument.empty() && argument.find_first_of(" \t'\"") == std::string::npos;
    quoted.push_back(plain ? argument : "'" + argument + "'");
  }
  return join(quoted, " ");
}

// "node-a (ranks 0-1), node-b (rank 2)" for the given ranks, at most five hosts named.
std::string hosts_with_ranks(const std::vector<RankHello>& hellos, const std::vector<int>& ranks) {
  std::vector<std::string> order;
  std::map<std::string, std::vector<int>> by_host;
  for (int rank : ranks) {
    const std::string& host = hellos[static_cast<std::size_t>(rank)].host.name;
    if (by_host.find(host) == by_host.end()) order.push_back(host);
    by_host[host].push_back(rank);
  }
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < order.size() && i < 5; ++i) {
    parts.push_back(fmt::format("{} ({})", order[i], rank_list(by_host[order[i]])));
  }
  if (order.size() > 5) parts.push_back(fmt::format("and {} more host(s)", order.size() - 5));
  return join(parts, ", ");
}

// Groups ranks by a key; the variants in order of their first rank.
template <typename KeyOf>
std::vector<std::pair<std::string, std::vector<int>>> variants(const std::vector<RankHello>& hellos, KeyOf key_of) {
  std::vector<std::pair<std::string, std::vector<int>>> out;
  for (const auto& hello : hellos) {
    const std::string key = key_of(hello);
    auto found = std::find_if(out.begin(), out.end(), [&](const auto& v) { return v.first == key; });
    if (found == out.end()) {
      out.push_back({key, {hello.rank}});
    } else {
      found->second.push_back(hello.rank);
    }
  }
  return out;
}

std::string describe_variants(const std::vector<RankHello>& hellos,
                              const std::vector<std::pair<std::string, std::vector<int>>>& found) {
  std::vector<std::string> parts;
  for (const auto& [key, ranks] : found) parts.push_back(fmt::format("{} on {}", key, hosts_with_ranks(hellos, ranks)));
  return join(parts, "; ");
}

void refuse(Roster& roster, const std::vector<RankHello>& hellos) {
  // A rank that could not take part: the first one's exit code, every one named.
  std::vector<std::string> failures;
  for (const auto& hello : hellos) {
    if (hello.error.empty()) continue;
    if (failures.empty()) roster.refusal_exit_code = hello.error_exit_code;
    failures.push_back(fmt::format("rank {} on {}: {}", hello.rank, hello.host.name, hello.error));
  }
  if (!failures.empty()) {
    const std::size_t shown = std::min<std::size_t>(failures.size(), 3);
    roster.refusal = join(std::vector<std::string>(failures.begin(), failures.begin() + static_cast<long>(shown)), "; ");
    if (failures.size() > shown) roster.refusal += fmt::format("; and {} more rank(s) failed", failures.size() - shown);
    return;
  }
  const auto builds = variants(hellos, [](const RankHello& h) { return fmt::format("linkscope {} ({})", h.version, h.git); });
  if (builds.size() > 1) {
    roster.refusal_exit_code = to_int(ExitCode::kUsage);
    roster.refusal = "the ranks run different linkscope builds: " + describe_variants(hellos, builds) +
                     "; install one build on every host";
    return;
  }
  const auto arguments = variants(hellos, [](const RankHello& h) { return "`" + quoted_arguments(h.arguments) + "`"; });
  if (arguments.size() > 1) {
    roster.refusal_exit_code = to_int(ExitCode::kUsage);
    roster.refusal = "the ranks were started with different arguments: " + describe_variants(hellos, arguments) +
                     "; give every rank the same command line";
    return;
  }
  for (const auto& host : roster.hosts) {
    std::vector<std::string> machines;
    for (int rank : host.ranks) {
      const auto& machine = hellos[static_cast<std::size_t>(rank)].host.hostname;
      if (std::find(machines.begin(), machines.end(), machine) == machines.end()) machines.push_back(machine);
    }
    if (machines.size() > 1) {
      roster.refusal_exit_code = to_int(ExitCode::kUsage);
      roster.refusal = fmt::format(
          "host name {} ({}) is claimed by ranks on different machines ({}); give each machine its own name, or "
          "unset {}", host.name, host.identity_source, join(machines, ", "), kHostNameVariable);
      return;
    }
  }
}

}  // namespace

std::vector<int> Roster::leaders() const {
  std::vector<int> out;
  for (const auto& host : hosts) out.push_back(host.leader);
  return out;
}

std::string Roster::rank_label(int rank) const {
  if (rank < 0 || rank >= static_cast<int>(host_of_rank.size())) return fmt::format("rank {}", rank);
  return fmt::format("rank {} ({})", rank, host_of(rank).name);
}

bool Roster::renamed() const {
  return std::any_of(hosts.begin(), hosts.end(), [](const RosterHost& h) { return h.identity_source != "hostname"; });
}

Roster make_roster(const std::vector<RankHello>& hellos) {
  Roster roster;
  roster.world_size = static_cast<int>(hellos.size());
  roster.ranks = hellos;
  for (std::size_t i = 0; i < hellos.size(); ++i) {
    if (hellos[i].rank != static_cast<int>(i)) {
      throw Error(ExitCode::kInternal, fmt::format("rank greeting {} claims to be rank {}", i, hellos[i].rank));
    }
    const auto& identity = hellos[i].host;
    auto host = std::find_if(roster.hosts.begin(), roster.hosts.end(), [&](const RosterHost& h) { return h.name == identity.name; });
    if (host == roster.hosts.end()) {
      roster.hosts.push_back({identity.name, identity.hostname, identity.source, {}, static_cast<int>(i)});
      host = roster.hosts.end() - 1;
    }
    host->ranks.push_back(static_cast<int>(i));
    roster.host_of_rank.push_back(static_cast<int>(host - roster.hosts.begin()));
  }
  refuse(roster, hellos);
  return roster;
}

nlohmann::json roster_to_json(const Roster& roster) {
  nlohmann::json hosts = nlohmann::json::array();
  for (const auto& host : roster.hosts) {
    hosts.push_back({{"name", host.name},
                     {"hostname", host.hostname},
                     {"identity_source", host.identity_source},
                     {"ranks", host.ranks},
                     {"leader", host.leader}});
  }
  nlohmann::json ranks = nlohmann::json::array();
  for (const auto& hello : roster.ranks) ranks.push_back(hello_to_json(hello));
  return {{"world_size", roster.world_size}, {"hosts", hosts},       {"host_of_rank", roster.host_of_rank},
          {"ranks", ranks},                  {"refusal", roster.refusal}, {"refusal_exit_code", roster.refusal_exit_code}};
}

Roster roster_from_json(const nlohmann::json& json) {
  try {
    Roster roster;
    roster.world_size = json.at("world_size").get<int>();
    for (const auto& host : json.at("hosts")) {
      roster.hosts.push_back({host.at("name").get<std::string>(), host.at("hostname").get<std::string>(),
                              host.at("identity_source").get<std::string>(), host.at("ranks").get<std::vector<int>>(),
                              host.at("leader").get<int>()});
    }
    roster.host_of_rank = json.at("host_of_rank").get<std::vector<int>>();
    for (const auto& hello : json.at("ranks")) roster.ranks.push_back(hello_from_json(hello));
    roster.refusal = json.at("refusal").get<std::string>();
    roster.refusal_exit_code = json.at("refusal_exit_code").get<int>();
    return roster;
  } catch (const nlohmann::json::exception& e) {
    throw Error(ExitCode::kInternal, std::string("malformed roster: ") + e.what());
  }
}

}  // namespace linkscope::cluster
