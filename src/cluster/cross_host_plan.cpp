#include "cluster/cross_host_plan.hpp"

#include <fmt/format.h>

#include "cluster/random_peer_schedule.hpp"
#include "cluster/representatives.hpp"
#include "core/error.hpp"

namespace linkscope::cluster {

CrossHostPlan make_cross_host_plan(const Roster& roster, const HostsComparison& hosts, const std::string& schedule,
                                   bool all_reduce, int peers, std::uint64_t seed) {
  CrossHostPlan plan;
  const auto chosen = choose_representatives(roster, hosts);
  std::vector<int> measured;  // host indices with a GPU
  for (std::size_t h = 0; h < chosen.size(); ++h) {
    plan.representatives.push_back(chosen[h].rank);
    if (chosen[h].rank >= 0) {
      measured.push_back(static_cast<int>(h));
      plan.notes.push_back(fmt::format("{} measured by {}", roster.hosts[h].name, chosen[h].reason));
    } else {
      plan.notes.push_back(fmt::format("{} is left out of the pairs: {}", roster.hosts[h].name, chosen[h].reason));
    }
  }
  const int count = static_cast<int>(measured.size());
  const auto rounds = schedule == "serial"        ? serial_rounds(count)
                      : schedule == "gpu-to-rack" ? random_peer_rounds(count, peers, seed)
                                                  : pair_rounds(count);
  for (const auto& round : rounds) {
    std::vector<HostPair> pairs;
    for (const auto& [a, b] : round) pairs.push_back({measured[static_cast<std::size_t>(a)], measured[static_cast<std::size_t>(b)]});
    plan.rounds.push_back(pairs);
  }
  plan.all_reduce = all_reduce && roster.world_size > 1;
  if (!all_reduce) plan.all_reduce_reason = "not asked (--no-all-reduce)";
  if (roster.world_size < 2) plan.all_reduce_reason = "one rank: nothing to reduce across";
  for (const auto& hello : roster.ranks) {
    if (!plan.all_reduce || hello.cuda_device) continue;
    plan.all_reduce = false;
    plan.all_reduce_reason = fmt::format("{} drives no GPU: {}", roster.rank_label(hello.rank), hello.cuda_device_reason);
  }
  return plan;
}

nlohmann::json cross_host_plan_to_json(const CrossHostPlan& plan) {
  nlohmann::json rounds = nlohmann::json::array();
  for (const auto& round : plan.rounds) {
    nlohmann::json pairs = nlohmann::json::array();
    for (const auto& [a, b] : round) pairs.push_back({a, b});
    rounds.push_back(pairs);
  }
  return {{"representatives", plan.representatives}, {"rounds", rounds}, {"all_reduce", plan.all_reduce},
          {"all_reduce_reason", plan.all_reduce_reason}, {"notes", plan.notes}};
}

CrossHostPlan cross_host_plan_from_json(const nlohmann::json& json) {
  try {
    CrossHostPlan plan;
    plan.representatives = json.at("representatives").get<std::vector<int>>();
    for (const auto& round : json.at("rounds")) {
      std::vector<HostPair> pairs;
      for (const auto& pair : round) pairs.push_back({pair.at(0).get<int>(), pair.at(1).get<int>()});
      plan.rounds.push_back(pairs);
    }
    plan.all_reduce = json.at("all_reduce").get<bool>();
    plan.all_reduce_reason = json.at("all_reduce_reason").get<std::string>();
    plan.notes = json.at("notes").get<std::vector<std::string>>();
    return plan;
  } catch (const nlohmann::json::exception& e) {
    throw Error(ExitCode::kInternal, std::string("malformed cross-host plan: ") + e.what());
  }
}

}  // namespace linkscope::cluster
