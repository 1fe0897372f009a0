// NCCL_* variables: NCCL's own parsing of NCCL_P2P_DISABLE/NCCL_P2P_LEVEL (nccl-topology-spec.md §6.1) and what each
// variable takes away on this machine.
#include <gtest/gtest.h>

#include "diagnose/diagnose.hpp"
#include "diagnose/nccl_env.hpp"
#include "diagnose_test_runs.hpp"

namespace linkscope::diagnose {
namespace {

std::optional<std::string> level(const std::string& variable, const std::string& value) {
  const auto l = p2p_level_override({{variable, value}});
  return l ? std::optional<std::string>(path_type_name(*l)) : std::nullopt;
}

TEST(RuleNcclEnv, P2pLevelParsesAsNcclDoes) {
  EXPECT_EQ(level("NCCL_P2P_LEVEL", "SYS"), "SYS");
  EXPECT_EQ(level("NCCL_P2P_LEVEL", "4"), "SYS");
  EXPECT_EQ(level("NCCL_P2P_LEVEL", "7"), "SYS");
  EXPECT_EQ(level("NCCL_P2P_LEVEL", "PHB"), "PHB");
  EXPECT_EQ(level("NCCL_P2P_LEVEL", "3"), "PHB");
  EXPECT_EQ(level("NCCL_P2P_LEVEL", "0x3"), "PHB");
  EXPECT_EQ(level("NCCL_P2P_LEVEL", "1"), "PIX");
  EXPECT_EQ(level("NCCL_P2P_LEVEL", "NVL"), "NVL");
  EXPECT_EQ(level("NCCL_P2P_LEVEL", "0"), "LOC");
  EXPECT_EQ(level("NCCL_P2P_LEVEL", "09"), "LOC");
  EXPECT_EQ(level("NCCL_P2P_DISABLE", "1"), "LOC");
  EXPECT_EQ(level("NCCL_P2P_DISABLE", "0"), std::nullopt);
  for (const char* ignored : {"sys", "NET", "DIS", "-1", ""}) {
    EXPECT_EQ(level("NCCL_P2P_LEVEL", ignored), std::nullopt) << ignored;
  }
  // NCCL_P2P_DISABLE=1 wins over a level.
  EXPECT_EQ(path_type_name(*p2p_level_override({{"NCCL_P2P_DISABLE", "1"}, {"NCCL_P2P_LEVEL", "SYS"}})), "LOC");
}

TEST(RuleNcclEnv, LevelsTakeP2pOnlyFromLongerPaths) {
  EXPECT_TRUE(env_removes_p2p({{"NCCL_P2P_DISABLE", "1"}}, "NV18"));
  EXPECT_FALSE(env_removes_p2p({{"NCCL_P2P_LEVEL", "PIX"}}, "NV18"));
  EXPECT_TRUE(env_removes_p2p({{"NCCL_P2P_LEVEL", "PIX"}}, "PXB"));
  EXPECT_TRUE(env_removes_p2p({{"NCCL_P2P_LEVEL", "NVL"}}, "NVB"));
  EXPECT_FALSE(env_removes_p2p({{"NCCL_P2P_LEVEL", "NVL"}}, "PHB")) << "PHB has no P2P by default anyway";
}

std::vector<Finding> with_env(nlohmann::json variables) {
  test::RunJson run = test::nvswitch_run(2);
  run.environment["variables"] = std::move(variables);
  return find_problems(run);
}

TEST(RuleNcclEnv, MachinePolicyAndDebugVariablesAreNotFindings) {
  EXPECT_TRUE(with_env({{"NCCL_NVLS_ENABLE", "0"}, {"NCCL_DEBUG", "INFO"}, {"NCCL_TOPO_DUMP_FILE", "/tmp/t.xml"},
                        {"NCCL_P2P_LEVEL", "PIX"}, {"NCCL_P2P_DISABLE", "0"}})
                  .empty());
}

TEST(RuleNcclEnv, EachVariableIsJudgedOnThisMachine) {
  auto f = with_env({{"NCCL_P2P_DISABLE", "1"}});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kError);
  EXPECT_EQ(f[0].gpus, (std::vector<int>{0, 1}));
  EXPECT_NE(f[0].next_command.find("-u NCCL_P2P_DISABLE"), std::string::npos) << f[0].next_command;
  f = with_env({{"NCCL_PROTO", "Simple"}});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kWarning);
  f = with_env({{"NCCL_SHM_DISABLE", "1"}});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].severity, Severity::kInfo) << "unused while every pair has P2P";
  f = with_env({{"NCCL_SHM_DISABLE", "1"}, {"NCCL_P2P_DISABLE", "1"}});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].evidence.size(), 2u);
  EXPECT_NE(f[0].evidence[1].find("falls back to the network"), std::string::npos) << f[0].evidence[1];
}

TEST(RuleNcclEnv, ModelEnvFromWhatIfIsNamedAsSuch) {
  test::RunJson run;
  run.model = {{"env", {{"NCCL_P2P_LEVEL", "LOC"}}},
               {"nodes", {{{"id", "GPU/0-1"}, {"type", "GPU"}, {"rank", 0}}, {{"id", "GPU/0-2"}, {"type", "GPU"}, {"rank", 1}}}},
               {"paths", {{{"from", "GPU/0-1"}, {"to", "GPU/0-2"}, {"type", "PIX"}, {"bw", 24.0}}}}};
  const auto f = find_problems(run);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].id, "nccl-env-path-removed");
  EXPECT_NE(f[0].cause.find("model env"), std::string::npos) << f[0].cause;
}

}  // namespace
}  // namespace linkscope::diagnose
