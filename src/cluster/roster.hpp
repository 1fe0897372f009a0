#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/rank_hello.hpp"
#include "core/text.hpp"

// Rank 0's view of an MPI job: which ranks run on which host, which rank speaks for each host (its leader),
// and whether the job may go on at all (same linkscope build and arguments everywhere, no rank failed to start).
// Made from every rank's RankHello at rank 0 and broadcast, so all ranks take the same decisions.
namespace linkscope::cluster {

struct RosterHost {
  std::string name;             // the host identity (cluster/host_identity.hpp)
  std::string hostname;         // the machine's own name
  std::string identity_source;  // where `name` came from
  std::vector<int> ranks;       // ascending
  int leader = 0;               // the lowest rank: it discovers the host and measures for it
};

struct Roster {
  int world_size = 0;
  std::vector<RosterHost> hosts;   // in the order of their lowest rank
  std::vector<int> host_of_rank;   // index into `hosts`, per world rank
  std::vector<RankHello> ranks;    // every rank's greeting, in rank order
  std::string refusal;             // not empty: every rank stops with this message
  int refusal_exit_code = 0;

  const RosterHost& host_of(int rank) const { return hosts.at(static_cast<std::size_t>(host_of_rank.at(static_cast<std::size_t>(rank)))); }
  bool leads(int rank) const { return host_of(rank).leader == rank; }
  std::vector<int> leaders() const;
  // "rank 3 (node-b)"
  std::string rank_label(int rank) const;
  // True when some host name did not come from the machine's own name.
  bool renamed() const;
};

// Builds the roster from the greetings of ranks 0..N-1 (in rank order) and checks them: a rank that failed to
// start, different builds, different arguments, or one host name claimed by two machines set `refusal` with a
// message naming the hosts and ranks.
Roster make_roster(const std::vector<RankHello>& hellos);

// "rank 3", "ranks 0-7", "ranks 0-3, 8" (core/text).
using linkscope::rank_list;

nlohmann::json roster_to_json(const Roster& roster);
Roster roster_from_json(const nlohmann::json& json);

}  // namespace linkscope::cluster
