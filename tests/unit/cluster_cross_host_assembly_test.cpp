// The cross-host plan rank 0 sends every rank (cluster/cross_host_plan) and how rank 0 joins every rank's sides of
// the pairs and of the all_reduce into measurements.cross_host (cluster/cross_host_assembly), through the JSON of
// their MPI messages.
#include <gtest/gtest.h>

#include "cluster/cross_host.hpp"
#include "cluster/cross_host_assembly.hpp"
#include "cluster/cross_host_plan.hpp"
#include "core/error.hpp"
#include "unit/cluster_test_hosts.hpp"

namespace linkscope::cluster {
namespace {

Roster three_hosts() {
  std::vector<RankHello> hellos(3);
  for (int r = 0; r < 3; ++r) {
    const std::string name = "node-" + std::string(1, static_cast<char>('a' + r));
    hellos[static_cast<std::size_t>(r)].rank = r;
    hellos[static_cast<std::size_t>(r)].host = {name, name, "hostname"};
    hellos[static_cast<std::size_t>(r)].cuda_device = 0;
  }
  return make_roster(hellos);
}

HostsComparison three_hosts_facts() {
  return compare_hosts({test::fixture_host("node-a", 0), test::fixture_host("node-b", 1), test::fixture_host("node-c", 2)});
}

MeasuredSide pair_side(int round, int a, int b, int side, int rank) {
  MeasuredSide s;
  s.round = round;
  s.a = a;
  s.b = b;
  s.side = side;
  s.rank = rank;
  s.cuda_device = 0;
  s.nic = "mlx5_0:1";
  s.transport = "NET/IB/GDRDMA";
  return s;
}

TEST(ClusterCrossHostPlan, EveryHostMeasuredByItsRankClosestToTheNic) {
  const CrossHostPlan plan = make_cross_host_plan(three_hosts(), three_hosts_facts(), "rounds", true);
  EXPECT_EQ(plan.representatives, (std::vector<int>{0, 1, 2}));
  ASSERT_EQ(plan.rounds.size(), 3u);  // three hosts: one pair per round, one host rests
  EXPECT_EQ(plan.rounds[0], (std::vector<HostPair>{{1, 2}}));
  EXPECT_EQ(plan.rounds[2], (std::vector<HostPair>{{0, 1}}));
  EXPECT_TRUE(plan.all_reduce);
  ASSERT_EQ(plan.notes.size(), 3u);
  EXPECT_EQ(plan.notes[0], "node-a measured by rank 0: GPU 0 is SYS to mlx5_0");

  const CrossHostPlan back = cross_host_plan_from_json(cross_host_plan_to_json(plan));
  EXPECT_EQ(back.representatives, plan.representatives);
  EXPECT_EQ(back.rounds, plan.rounds);
  EXPECT_EQ(back.notes, plan.notes);

  EXPECT_EQ(make_cross_host_plan(three_hosts(), three_hosts_facts(), "serial", false).all_reduce_reason,
            "not asked (--no-all-reduce)");
  EXPECT_THROW(cross_host_plan_from_json(nlohmann::json{{"rounds", 3}}), Error);
}

TEST(ClusterCrossHostAssembly, BothSidesOfEveryPairAndTheAllReduceBecomeOneSection) {
  const Roster roster = three_hosts();
  const HostsComparison facts = three_hosts_facts();
  const CrossHostPlan plan = make_cross_host_plan(roster, facts, "rounds", true);
  std::vector<RankCrossHostResults> ranks(3);
  // node-b <-> node-c hung; node-a <-> node-c lost node-c's side; node-a <-> node-b ran.
  MeasuredSide hung = pair_side(0, 1, 2, 0, 1);
  hung.status = "timeout";
  hung.reason = "no progress for 60 s";
  hung.hints = {{"ib-timeout", "In many cases this error occurs when the NCCL_IB_TIMEOUT is set too short.",
                 {"Default value is 20, which is ~30 seconds before error."}, true, 1}};
  ranks[1].pairs.push_back(hung);
  ranks[2].pairs.push_back(pair_side(0, 1, 2, 1, 2));
  MeasuredSide half = pair_side(1, 0, 2, 0, 0);
  half.series = test::measured_series(coll::CollectiveOp::kSendRecv, 2, 23.5);
  ranks[0].pairs.push_back(half);
  MeasuredSide first = pair_side(2, 0, 1, 0, 0);
  first.series = test::measured_series(coll::CollectiveOp::kSendRecv, 2, 47.0);
  first.pci_bdf = "0000:07:00.0";
  ranks[0].pairs.push_back(first);
  ranks[1].pairs.push_back(pair_side(2, 0, 1, 1, 1));
  MeasuredSide reduce_a = pair_side(0, 0, 0, 0, 0);
  reduce_a.series = test::measured_series(coll::CollectiveOp::kAllReduce, 3, 20.0);
  ranks[0].all_reduce = reduce_a;
  MeasuredSide reduce_b = pair_side(0, 0, 0, 0, 1);
  reduce_b.nic.clear();
  reduce_b.nic_reason = "NCCL's log shows no connection";
  ranks[1].all_reduce = reduce_b;

  // Through the messages' JSON, as rank 0 receives them.
  std::vector<RankCrossHostResults> received;
  for (const auto& mine : ranks) {
    const nlohmann::json message = rank_results_to_json(mine);
    received.push_back(rank_results_from_json(model::JsonReader::root(message, "a rank's cross-host results")));
  }
  const model::CrossHost cross = assemble_cross_host(roster, &facts, "rounds", {256ULL << 20}, plan, received);

  EXPECT_EQ(cross.hosts, (std::vector<std::string>{"node-a", "node-b", "node-c"}));
  ASSERT_EQ(cross.pairs.size(), 3u);
  EXPECT_EQ(cross.pairs[0].status, "timeout");
  EXPECT_EQ(cross.pairs[0].reason, "no progress for 60 s");
  ASSERT_EQ(cross.pairs[0].a.hints.size(), 1u);  // NCCL's HINT travels from the rank that saw it to the section
  EXPECT_EQ(cross.pairs[0].a.hints[0].kind, "ib-timeout");
  EXPECT_EQ(cross.pairs[0].a.hints[0].advice.size(), 1u);
  const model::CrossHost reread = model::cross_host_from_json(model::JsonReader::root(model::to_json(cross), "run.json"));
  EXPECT_EQ(model::to_json(reread), model::to_json(cross));
  ASSERT_EQ(reread.pairs[0].a.hints.size(), 1u);
  EXPECT_TRUE(reread.pairs[0].b.hints.empty());
  EXPECT_EQ(cross.pairs[1].status, "error");
  EXPECT_EQ(cross.pairs[1].reason, "no result from rank 2 (node-c)");
  EXPECT_EQ(cross.pairs[1].b.host, 2);
  EXPECT_EQ(cross.pairs[2].status, "ok");
  EXPECT_EQ(cross.pairs[2].round, 2);
  EXPECT_DOUBLE_EQ(*cross.pairs[2].bandwidth_gbps, 47.0);
  EXPECT_EQ(cross.pairs[2].a.gpu_bdf, "0000:07:00.0");
  EXPECT_EQ(cross.pairs[2].a.nic, "mlx5_0:1");
  EXPECT_EQ(cross.pairs[2].b.rank, 1);
  EXPECT_EQ(cross.pairs[2].b.cuda_device, 0);

  EXPECT_EQ(cross.all_reduce_status, "ok");
  ASSERT_TRUE(cross.all_reduce);
  EXPECT_EQ(cross.all_reduce->nranks, 3);
  EXPECT_EQ(cross.all_reduce_transports,
            (std::vector<std::string>{"node-a: NET/IB/GDRDMA via mlx5_0:1",
                                      "node-b: NET/IB/GDRDMA (NCCL's log shows no connection)"}));
  EXPECT_EQ(cross.notes.back(), "all_reduce busbw 20.0 GB/s at 256 MiB over 3 ranks; the slowest host pair, node-a <-> "
                                "node-c, moved 23.5 GB/s per direction");

  EXPECT_EQ(cross_host_exit_code(cross), to_int(ExitCode::kTimeout));
  model::Run run;
  record_cross_host_errors(run, cross);
  ASSERT_EQ(run.errors.size(), 2u);
  EXPECT_EQ(run.errors[0].where, "cross_host node-b <-> node-c");
  EXPECT_EQ(run.errors[0].message, "timeout: no progress for 60 s");
  EXPECT_EQ(run.errors[1].message, "error: no result from rank 2 (node-c)");
}

TEST(ClusterCrossHostAssembly, AnAllReduceThatFailedSomewhereNamesTheRank) {
  const Roster roster = three_hosts();
  const CrossHostPlan plan = make_cross_host_plan(roster, three_hosts_facts(), "rounds", true);
  std::vector<RankCrossHostResults> ranks(3);
  for (int r = 0; r < 3; ++r) ranks[static_cast<std::size_t>(r)].all_reduce = pair_side(0, 0, 0, 0, r);
  ranks[2].all_reduce->status = "error";
  ranks[2].all_reduce->reason = "ncclCommInitRank failed: unhandled system error";
  const model::CrossHost cross = assemble_cross_host(roster, nullptr, "rounds", {1 << 20}, plan, ranks);
  EXPECT_EQ(cross.all_reduce_status, "error");
  EXPECT_EQ(cross.all_reduce_reason, "rank 2 (node-c): ncclCommInitRank failed: unhandled system error");
  EXPECT_EQ(cross.pairs.size(), 3u);  // no rank reported a pair: every pair is an error naming its ranks
  EXPECT_EQ(cross_host_exit_code(cross), to_int(ExitCode::kDevice));

  CrossHostPlan without = plan;
  without.all_reduce = false;
  without.all_reduce_reason = "not asked (--no-all-reduce)";
  const model::CrossHost skipped = assemble_cross_host(roster, nullptr, "rounds", {1 << 20}, without, ranks);
  EXPECT_EQ(skipped.all_reduce_status, "not run");
  EXPECT_EQ(skipped.all_reduce_reason, "not asked (--no-all-reduce)");
}

}  // namespace
}  // namespace linkscope::cluster
