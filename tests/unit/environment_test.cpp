#include "core/environment.hpp"

#include <cstdlib>

#include <gtest/gtest.h>

#include "core/error.hpp"

namespace linkscope {
namespace {

TEST(Environment, OverridesWinOverProcess) {
  setenv("NCCL_LINKSCOPE_TEST_VAR", "1", 1);
  Environment env = Environment::from_process();
  EXPECT_EQ(env.get("NCCL_LINKSCOPE_TEST_VAR").value_or(""), "1");
  env.set("NCCL_LINKSCOPE_TEST_VAR", "0");
  EXPECT_EQ(env.get("NCCL_LINKSCOPE_TEST_VAR").value_or(""), "0");
  env.unset("NCCL_LINKSCOPE_TEST_VAR");
  EXPECT_FALSE(env.has("NCCL_LINKSCOPE_TEST_VAR"));
  unsetenv("NCCL_LINKSCOPE_TEST_VAR");
}

TEST(Environment, RelevantKeepsOnlyAllowlistedAndNoSecrets) {
  const Environment env = Environment::from_map({{"NCCL_P2P_DISABLE", "1"},
                                                 {"CUDA_VISIBLE_DEVICES", "1"},
                                                 {"HOME", "/root"},
                                                 {"AWS_SECRET_ACCESS_KEY", "x"},
                                                 {"NCCL_IB_TOKEN", "x"},
                                                 {"OMPI_COMM_WORLD_SIZE", "2"}});
  const auto kept = env.relevant();
  EXPECT_EQ(kept.size(), 3u);
  EXPECT_TRUE(kept.count("NCCL_P2P_DISABLE"));
  EXPECT_TRUE(kept.count("CUDA_VISIBLE_DEVICES"));
  EXPECT_TRUE(kept.count("OMPI_COMM_WORLD_SIZE"));
  // A collective run records the NCCL ones, never a secret.
  EXPECT_EQ(env.nccl_variables(), (std::map<std::string, std::string>{{"NCCL_P2P_DISABLE", "1"}}));
}

TEST(Environment, ParsesAssignments) {
  EXPECT_EQ(parse_env_assignment("NCCL_P2P_LEVEL=PIX"), std::make_pair(std::string("NCCL_P2P_LEVEL"), std::string("PIX")));
  EXPECT_EQ(parse_env_assignment("A=b=c").second, "b=c");
  EXPECT_EQ(parse_env_assignment("A=").second, "");
  EXPECT_THROW(parse_env_assignment("NOEQUALS"), UsageError);
  EXPECT_THROW(parse_env_assignment("=1"), UsageError);
  EXPECT_THROW(parse_env_assignment("BAD NAME=1"), UsageError);
}

}  // namespace
}  // namespace linkscope
