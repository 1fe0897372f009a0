#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/host_comparison.hpp"
#include "cluster/pair_schedule.hpp"
#include "cluster/roster.hpp"

// What the cross-host tests will do, decided at rank 0 and sent to every rank, so all take the same steps: which rank
// measures for each host (cluster/representatives.hpp), the rounds of host pairs, and whether the all_reduce over
// every rank can run.
namespace linkscope::cluster {

struct CrossHostPlan {
  std::vector<int> representatives;  // per host: a rank, or -1
  std::vector<std::vector<HostPair>> rounds;
  bool all_reduce = false;
  std::string all_reduce_reason;     // why not, when it does not run
  std::vector<std::string> notes;    // who measures for each host, who is left out
};

// `schedule` "rounds" (disjoint pairs at once), "serial", or "gpu-to-rack" (each host against `peers` random others,
// drawn from `seed`: cluster/random_peer_schedule.hpp); `all_reduce` false: not asked.
CrossHostPlan make_cross_host_plan(const Roster& roster, const HostsComparison& hosts, const std::string& schedule,
                                   bool all_reduce, int peers = 3, std::uint64_t seed = 0);

nlohmann::json cross_host_plan_to_json(const CrossHostPlan& plan);
// Reads what cross_host_plan_to_json wrote; another shape is an internal error (the message came from this build).
CrossHostPlan cross_host_plan_from_json(const nlohmann::json& json);

}  // namespace linkscope::cluster
