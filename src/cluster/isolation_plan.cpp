#include "cluster/isolation_plan.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "core/error.hpp"

namespace linkscope::cluster {

namespace {

bool bad(GroupOutcome outcome) { return outcome != GroupOutcome::kOk; }

std::vector<int> sorted(std::vector<int> hosts) {
  std::sort(hosts.begin(), hosts.end());
  return hosts;
}

bool contains(const std::vector<int>& hosts, int host) {
  return std::find(hosts.begin(), hosts.end(), host) != hosts.end();
}

}  // namespace

IsolationPlanner::IsolationPlanner(int hosts) : state_(static_cast<std::size_t>(std::max(hosts, 0)), State::kUnknown) {
  report_.hosts = hosts;
  report_.per_host.resize(state_.size());
  if (hosts < 2) report_.notes.push_back("fewer than two hosts: a cross-host collective needs two");
}

void IsolationPlanner::add_group(std::vector<int> hosts, GroupRole role, int partner) {
  IsolationGroup group;
  group.hosts = sorted(std::move(hosts));
  group.role = role;
  group.partner = partner;
  planned_.push_back(std::move(group));
}

int IsolationPlanner::take_partner() {
  if (partners_.empty()) return -1;
  const int partner = partners_.back();
  partners_.pop_back();
  return partner;
}

std::vector<IsolationGroup> IsolationPlanner::next_run() {
  if (!planned_.empty()) throw Error(ExitCode::kInternal, "isolation: the planned run was not recorded");
  if (report_.hosts < 2) return {};
  if (finished_) return {};
  if (report_.runs.empty()) {
    std::vector<int> every(static_cast<std::size_t>(report_.hosts));
    std::iota(every.begin(), every.end(), 0);
    add_group(every, GroupRole::kEveryHost);
    return planned_;
  }
  partners_.clear();
  for (std::size_t h = state_.size(); h-- > 0;) {  // taken from the back: lowest index first
    if (state_[h] == State::kGood) partners_.push_back(static_cast<int>(h));
  }
  splits_.clear();
  for (const auto& suspect : suspects_) {
    Split split;
    const auto middle = suspect.begin() + static_cast<std::ptrdiff_t>((suspect.size() + 1) / 2);
    split.halves[0].assign(suspect.begin(), middle);
    split.halves[1].assign(middle, suspect.end());
    for (int half = 0; half < 2; ++half) {
      if (split.halves[half].size() >= 2) {
        split.group[half] = static_cast<int>(planned_.size());
        add_group(split.halves[half], GroupRole::kHalf);
      }
    }
    splits_.push_back(std::move(split));
  }
  // Good partners are scarce early on: one single suspect of each split first (the other is then often named by
  // inference), then the hosts waiting for a partner, then the rest.
  const auto pair_singles = [&](bool first_only) {
    for (auto& split : splits_) {
      for (int half = 0; half < 2; ++half) {
        if (split.halves[half].size() != 1 || split.group[half] >= 0) continue;
        if (first_only && half == 1 && split.halves[0].size() == 1) continue;
        const int partner = take_partner();
        if (partner < 0) return;
        split.group[half] = static_cast<int>(planned_.size());
        add_group({split.halves[half].front(), partner}, GroupRole::kWithGood, partner);
      }
    }
  };
  pair_singles(true);
  std::vector<int> waiting;
  for (int host : pending_) {
    const int partner = take_partner();
    if (partner < 0) {
      waiting.push_back(host);
      continue;
    }
    add_group({host, partner}, GroupRole::kWithGood, partner);
  }
  pending_ = waiting;
  pair_singles(false);
  if (planned_.empty()) plan_across();
  if (planned_.empty()) finish();
  return planned_;
}

void IsolationPlanner::plan_across() {
  if (across_runs_ >= kCrossRuns) return;
  std::vector<int> candidates = pending_;
  std::vector<int> group_of(state_.size(), -1);
  for (std::size_t s = 0; s < suspects_.size(); ++s) {
    for (int host : suspects_[s]) {
      candidates.push_back(host);
      group_of[static_cast<std::size_t>(host)] = static_cast<int>(s);
    }
  }
  std::vector<bool> used(state_.size(), false);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const int x = candidates[i];
    for (std::size_t j = i + 1; j < candidates.size() && !used[static_cast<std::size_t>(x)]; ++j) {
      const int y = candidates[j];
      const int gx = group_of[static_cast<std::size_t>(x)];
      if (used[static_cast<std::size_t>(y)] || (gx >= 0 && gx == group_of[static_cast<std::size_t>(y)])) continue;
      const std::vector<int> pair = sorted({x, y});
      if (std::find(across_tried_.begin(), across_tried_.end(), pair) != across_tried_.end()) continue;
      used[static_cast<std::size_t>(x)] = used[static_cast<std::size_t>(y)] = true;
      across_tried_.push_back(pair);
      add_group(pair, GroupRole::kAcross);
    }
  }
  if (!planned_.empty()) ++across_runs_;
}

void IsolationPlanner::mark_good(const std::vector<int>& hosts) {
  for (int host : hosts) {
    auto& state = state_[static_cast<std::size_t>(host)];
    if (state == State::kBad) continue;  // named earlier; the contradiction is noted by propagate()
    state = State::kGood;
    report_.per_host[static_cast<std::size_t>(host)].verdict = HostVerdict::kGood;
  }
}

void IsolationPlanner::name_bad(int host, HostMembership by, bool inferred) {
  if (state_[static_cast<std::size_t>(host)] != State::kUnknown) return;
  state_[static_cast<std::size_t>(host)] = State::kBad;
  const auto& group = report_.runs[static_cast<std::size_t>(by.run)].groups[static_cast<std::size_t>(by.group)];
  HostIsolation& mine = report_.per_host[static_cast<std::size_t>(host)];
  mine.verdict = group.outcome == GroupOutcome::kHung ? HostVerdict::kHung : HostVerdict::kSlow;
  mine.named_by = by;
  mine.inferred = inferred;
}

void IsolationPlanner::apply_split(const Split& split) {
  const auto& run = report_.runs.back();
  bool measured_bad = false, measured_any = false;
  for (int group : split.group) {
    if (group < 0) continue;
    measured_any = true;
    measured_bad = measured_bad || bad(run.groups[static_cast<std::size_t>(group)].outcome);
  }
  if (!measured_any) {  // neither half could be measured: the group stays as it was
    suspects_.push_back(sorted(split.halves[0]));
    suspects_.back().insert(suspects_.back().end(), split.halves[1].begin(), split.halves[1].end());
    return;
  }
  for (int half = 0; half < 2; ++half) {
    const auto& hosts = split.halves[half];
    if (hosts.empty()) continue;
    const int group = split.group[half];
    if (group < 0) {
      // A single host left unmeasured: named by propagate() when the other half was good, else it waits.
      if (measured_bad) pending_.push_back(hosts.front());
      continue;
    }
    const auto& measured = run.groups[static_cast<std::size_t>(group)];
    if (bad(measured.outcome) && measured.role == GroupRole::kHalf) suspects_.push_back(hosts);
  }
}

void IsolationPlanner::propagate() {
  bool changed = true;
  while (changed) {
    changed = false;
    for (std::size_t r = report_.runs.size(); r-- > 0;) {  // the latest, smallest group names a host
      const auto& groups = report_.runs[r].groups;
      for (std::size_t g = 0; g < groups.size(); ++g) {
        if (!bad(groups[g].outcome)) continue;
        std::vector<int> unknown;
        bool explained = false;
        for (int host : groups[g].hosts) {
          const State state = state_[static_cast<std::size_t>(host)];
          if (state == State::kUnknown) unknown.push_back(host);
          explained = explained || state == State::kBad;
        }
        if (explained || unknown.size() != 1) continue;
        name_bad(unknown.front(), {static_cast<int>(r), static_cast<int>(g)}, groups[g].role != GroupRole::kWithGood);
        changed = true;
      }
    }
  }
  // Suspect groups keep their unknown hosts; one whose slowness a named host explains no longer says anything
  // about the others, which then wait for a partner.
  std::vector<std::vector<int>> suspects;
  for (const auto& suspect : suspects_) {
    std::vector<int> unknown;
    bool explained = false;
    for (int host : suspect) {
      const State state = state_[static_cast<std::size_t>(host)];
      if (state == State::kUnknown) unknown.push_back(host);
      explained = explained || state == State::kBad;
    }
    if (explained || unknown.size() < 2) {
      pending_.insert(pending_.end(), unknown.begin(), unknown.end());
    } else {
      suspects.push_back(unknown);
    }
  }
  suspects_ = suspects;
  std::vector<int> pending;
  for (int host : pending_) {
    if (state_[static_cast<std::size_t>(host)] == State::kUnknown && !contains(pending, host)) pending.push_back(host);
  }
  pending_ = pending;
}

void IsolationPlanner::record(const std::vector<GroupOutcome>& outcomes) {
  std::vector<IsolationGroup> measured(outcomes.size());
  for (std::size_t g = 0; g < outcomes.size(); ++g) measured[g].outcome = outcomes[g];
  record(measured);
}

void IsolationPlanner::record(const std::vector<IsolationGroup>& measured) {
  if (measured.size() != planned_.size()) {
    throw Error(ExitCode::kInternal, fmt::format("isolation: {} outcomes for a run of {} groups", measured.size(),
                                                 planned_.size()));
  }
  const int run_index = static_cast<int>(report_.runs.size());
  IsolationRun run;
  run.groups = std::move(planned_);
  planned_.clear();
  for (std::size_t g = 0; g < run.groups.size(); ++g) {
    run.groups[g].outcome = measured[g].outcome;
    run.groups[g].busbw_gbps = measured[g].busbw_gbps;
    run.groups[g].reason = measured[g].reason;
    for (int host : run.groups[g].hosts) {
      report_.per_host[static_cast<std::size_t>(host)].memberships.push_back({run_index, static_cast<int>(g)});
    }
  }
  report_.runs.push_back(std::move(run));
  const auto& groups = report_.runs.back().groups;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto& group = groups[g];
    if (!bad(group.outcome)) {
      mark_good(group.hosts);
    } else if (group.role == GroupRole::kEveryHost) {
      suspects_ = {group.hosts};
    }
  }
  for (std::size_t g = 0; g < groups.size(); ++g) {  // after mark_good: a partner is never named
    const auto& group = groups[g];
    if (!bad(group.outcome) || group.role != GroupRole::kWithGood) continue;
    name_bad(group.hosts[group.hosts[0] == group.partner ? 1 : 0], {run_index, static_cast<int>(g)}, false);
  }
  const auto splits = std::move(splits_);
  splits_.clear();
  if (!splits.empty()) suspects_.clear();
  for (const auto& split : splits) {
    bool any_bad = false, measured_all = split.group[0] >= 0 && (split.halves[1].empty() || split.group[1] >= 0);
    for (int group : split.group) any_bad = any_bad || (group >= 0 && bad(groups[static_cast<std::size_t>(group)].outcome));
    if (measured_all && !any_bad) {
      std::vector<int> hosts = split.halves[0];
      hosts.insert(hosts.end(), split.halves[1].begin(), split.halves[1].end());
      report_.notes.push_back(fmt::format("run {}: both halves of a slow group ({} hosts) were ok; the slowness came "
                                          "from both halves together, or from noise",
                                          run_index + 1, hosts.size()));
    }
    apply_split(split);
  }
  propagate();
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (!bad(groups[g].outcome)) continue;
    bool every_good = true;
    for (int host : groups[g].hosts) every_good = every_good && state_[static_cast<std::size_t>(host)] == State::kGood;
    if (every_good) {
      report_.notes.push_back(fmt::format("run {}: a group was {} although each of its hosts was found good elsewhere",
                                          run_index + 1, outcome_name(groups[g].outcome)));
    }
  }
}

void IsolationPlanner::finish() {
  if (finished_) return;
  finished_ = true;
  if (report_.hosts_with(HostVerdict::kUnresolved).empty()) return;
  report_.notes.push_back(
      "some hosts could not be told apart: no host they could be measured beside was found good (two hosts, or "
      "every group slow); the fabric or the expectation may be at fault rather than one host");
}

IsolationReport isolate_hosts(int hosts, const GroupMeasure& measure) {
  IsolationPlanner planner(hosts);
  for (auto run = planner.next_run(); !run.empty(); run = planner.next_run()) planner.record(measure(run));
  return planner.report();
}

}  // namespace linkscope::cluster
