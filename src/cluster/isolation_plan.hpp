#pragma once
#include <functional>
#include <vector>

#include "model/isolation.hpp"

// Finding the slow or hung hosts of a fleet by adaptive group testing (`cluster --isolate`). Pure code: it decides
// which groups of hosts run a collective together and reads what came back; the executor measures.
//
// A *run* is one round: disjoint groups of hosts, each running its own collective, all at once. The first run is one
// group of every host. A group that comes back slow or hung holds at least one bad host: it is split in halves,
// the halves are measured in the next run (beside every other suspect group's halves: they share no host), and so
// on. One host cannot run a cross-host collective alone, so a single suspect is measured with a partner that an
// earlier run found good; a slow or hung pair then names it. A suspect is also named without being measured when
// every other host of a slow group was found good.
//
// Bounds (tests/unit/cluster_isolation_plan_test.cpp, docs/multi-node.md): one bad host among N >= 4 takes at most
// ceil(log2 N) + 1 runs and 2 ceil(log2 N) + 1 collectives (among 3: 4 runs); k bad hosts take O(k log N)
// collectives and at most ceil(log2 N) + 3 runs (k = 2, 3 tested). Without any host known good (two hosts, or every
// host bad), suspects are paired across their groups for at most kCrossRuns runs; what stays unexplained is
// "unresolved".
namespace linkscope::cluster {

using model::GroupOutcome;
using model::GroupRole;
using model::HostIsolation;
using model::HostMembership;
using model::HostVerdict;
using model::IsolationGroup;
using model::IsolationReport;
using model::IsolationRun;

// At most this many runs pair suspects of different groups when no host is known good.
inline constexpr int kCrossRuns = 2;

// The group testing, one run at a time: next_run() says what to measure, record() takes the outcomes in the same
// order as its groups, until next_run() is empty.
class IsolationPlanner {
 public:
  explicit IsolationPlanner(int hosts);

  std::vector<IsolationGroup> next_run();
  void record(const std::vector<GroupOutcome>& outcomes);
  // The same with what the executor measured: each group's outcome, busbw and reason (the rest of each is ignored).
  void record(const std::vector<IsolationGroup>& measured);
  const IsolationReport& report() const { return report_; }

 private:
  enum class State { kUnknown, kGood, kBad };
  struct Split {          // a suspect group being measured by halves in the pending run
    std::vector<int> halves[2];
    int group[2] = {-1, -1};  // the pending run's group measuring each half, or -1
  };

  void add_group(std::vector<int> hosts, GroupRole role, int partner = -1);
  int take_partner();
  void plan_across();
  void apply_split(const Split& split);
  void mark_good(const std::vector<int>& hosts);
  void name_bad(int host, HostMembership by, bool inferred);
  void propagate();
  void finish();  // no run left: says why hosts stay unresolved

  IsolationReport report_;
  std::vector<State> state_;
  std::vector<std::vector<int>> suspects_;  // disjoint groups of unknown hosts, each holding a bad host
  std::vector<int> pending_;                // unknown hosts to measure beside a good one
  std::vector<IsolationGroup> planned_;     // the run handed out and not yet recorded
  std::vector<Split> splits_;
  std::vector<int> partners_;               // good hosts free in the run being planned
  std::vector<std::vector<int>> across_tried_;
  int across_runs_ = 0;
  bool finished_ = false;
};

// Runs the planner against `measure` (one call per run) to the end.
using GroupMeasure = std::function<std::vector<GroupOutcome>(const std::vector<IsolationGroup>& run)>;
IsolationReport isolate_hosts(int hosts, const GroupMeasure& measure);

}  // namespace linkscope::cluster
