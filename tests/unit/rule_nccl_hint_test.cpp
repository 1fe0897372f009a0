// nccl-hint: NCCL's HINT lines (2.30.7), read from its log by the runtime parser, judged by the rule. The log lines are
// written for this test from the format strings of net_ib/common.h and misc/ibvwrap.cc at v2.30.7-1.
#include <algorithm>

#include <gtest/gtest.h>

#include "diagnose/diagnose.hpp"
#include "diagnose_test_runs.hpp"
#include "runtime/nccl_log.hpp"

namespace linkscope::diagnose {
namespace {

model::Run run_with_log(const std::string& log) {
  model::Run run = test::nvswitch_run(2);
  model::RuntimeRun runtime_run;
  runtime_run.context = "coll all_reduce";
  runtime_run.info = runtime::parse_nccl_log(log);
  run.runtime.runs.push_back(std::move(runtime_run));
  return run;
}

const model::Finding* hint_finding(const std::vector<model::Finding>& findings) {
  const auto it = std::find_if(findings.begin(), findings.end(), [](const auto& f) { return f.id == "nccl-hint"; });
  return it == findings.end() ? nullptr : &*it;
}

TEST(RuleNcclHint, AcsHintNamesTheCauseAndLeavesTheFallThroughOut) {
  const auto diagnosis = diagnose(run_with_log(
      "n:1:7 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<43121> with status=4 opcode=0 len=0 vendor err 81 (Recv)\n"
      "n:1:7 [0] NCCL INFO HINT: In many cases this error occurs when ACS is enabled which would break GPU Direct RDMA protocol.\n"
      "n:1:7 [0] NCCL INFO HINT: To confirm and fix the problem, you can set NCCL_NET_GDR_LEVEL=0 to disable ACS following vendor documentation.\n"
      "n:1:7 [0] NCCL INFO HINT: In many cases this error occurs when NIC on the same instance cannot talk to each other.\n"
      "n:1:7 [0] NCCL INFO HINT: In many cases this error occurs when the NCCL_IB_TIMEOUT is set too short.\n"
      "n:1:7 [0] NCCL INFO HINT: Default value is 20, which is ~30 seconds before error.\n"));
  const model::Finding* finding = hint_finding(diagnosis.findings);
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->severity, Severity::kWarning);
  ASSERT_EQ(finding->evidence.size(), 2u);  // the ACS hint and its advice; the fall-through hints are not causes
  EXPECT_EQ(finding->evidence[0],
            "NCCL in coll all_reduce: HINT: In many cases this error occurs when ACS is enabled which would break GPU "
            "Direct RDMA protocol.");
  EXPECT_NE(finding->evidence[1].find("NCCL_NET_GDR_LEVEL=0"), std::string::npos);
  EXPECT_NE(finding->title.find("ACS is enabled"), std::string::npos);
  EXPECT_NE(finding->cause.find("Access Control Services"), std::string::npos);
  EXPECT_NE(finding->next_command.find("acsctl"), std::string::npos);
}

TEST(RuleNcclHint, SeveralKindsAreOneFindingAndTheFirstGivesTheStep) {
  const auto diagnosis = diagnose(run_with_log(
      "n:2:3 [2] NCCL INFO HINT: In many cases this error occurs when NICs are not cross-rail connected.\n"
      "n:2:3 [2] NCCL INFO HINT: To confirm, you can set NCCL_CROSS_NIC=0 to disable cross-rail communication.\n"
      "n:2:3 [2] NCCL WARN Call to ibv_modify_qp failed with 110 Connection timed out, on dev mlx5_1:1\n"
      "n:2:3 [2] NCCL INFO HINT: In many cases this error occurs when NICs are not cross-rail connected.\n"
      "n:2:3 [2] NCCL INFO HINT: To confirm, you can set NCCL_CROSS_NIC=0 to disable cross-rail communication.\n"
      "n:3:3 [0] NCCL INFO HINT: In many cases this error occurs when the incorrect GID index is forced by NCCL_IB_GID_INDEX\n"));
  const model::Finding* finding = hint_finding(diagnosis.findings);
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->title, "NCCL printed 2 hints about its errors");
  EXPECT_NE(finding->evidence[0].find("(2 times)"), std::string::npos);
  EXPECT_NE(finding->next_command.find("NCCL_CROSS_NIC=0"), std::string::npos);
}

TEST(RuleNcclHint, CrossHostSidesCarryTheirHints) {
  model::Run run = test::nvswitch_run(2);
  model::CrossHost cross;
  cross.hosts = {"node-a", "node-b"};
  model::CrossHostPair pair;
  pair.a.host = 0;
  pair.a.rank = 0;
  pair.b.host = 1;
  pair.b.rank = 8;
  pair.b.hints = runtime::parse_nccl_log(
      "node-b:9:9 [0] NCCL INFO HINT: In many cases this error occurs when NICs are not cross-rail connected.\n"
      "node-b:9:9 [0] NCCL INFO HINT: To confirm, you can set NCCL_CROSS_NIC=0 to disable cross-rail communication.\n")
                     .hints;
  cross.pairs.push_back(pair);
  run.measurements.cross_host = cross;
  const auto diagnosis = diagnose(run);
  const model::Finding* finding = hint_finding(diagnosis.findings);
  ASSERT_NE(finding, nullptr);
  EXPECT_EQ(finding->evidence[0],
            "NCCL on node-b (rank 8) between node-a and node-b: HINT: In many cases this error occurs when NICs are not "
            "cross-rail connected.");
  EXPECT_NE(finding->next_command.find("NCCL_CROSS_NIC=0"), std::string::npos);
}

TEST(RuleNcclHint, NoHintNoFinding) {
  const auto diagnosis = diagnose(run_with_log("n:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read\n"));
  EXPECT_EQ(hint_finding(diagnosis.findings), nullptr);
}

}  // namespace
}  // namespace linkscope::diagnose
