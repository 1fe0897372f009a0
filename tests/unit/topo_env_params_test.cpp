// NCCL's parsing of the model-changing variables (spec §6.1, §8).
#include <gtest/gtest.h>

#include "topo/env_params.hpp"
#include "topo/topo_types.hpp"

namespace linkscope::topo {
namespace {

NcclParams params_of(std::map<std::string, std::string> variables) {
  return resolve_nccl_params(Environment::from_map(std::move(variables)));
}

TEST(TopoEnvParams, LevelTableOfTheSpec) {
  EXPECT_EQ(parse_nccl_level("SYS"), kPathSys);
  EXPECT_EQ(parse_nccl_level("4"), kPathSys);
  EXPECT_EQ(parse_nccl_level("7"), kPathSys);  // old numbering capped at 5
  EXPECT_EQ(parse_nccl_level("PHB"), kPathPhb);
  EXPECT_EQ(parse_nccl_level("3"), kPathPhb);
  EXPECT_EQ(parse_nccl_level("0x3"), kPathPhb);
  EXPECT_EQ(parse_nccl_level("PIX"), kPathPix);
  EXPECT_EQ(parse_nccl_level("1"), kPathPix);
  EXPECT_EQ(parse_nccl_level("2"), kPathPxb);
  EXPECT_EQ(parse_nccl_level("NVL"), kPathNvl);
  EXPECT_EQ(parse_nccl_level("C2C"), kPathC2c);
  EXPECT_EQ(parse_nccl_level("0"), kPathLoc);
  EXPECT_EQ(parse_nccl_level("09"), kPathLoc);
  EXPECT_EQ(parse_nccl_level("LOC"), kPathLoc);
  EXPECT_FALSE(parse_nccl_level("sys").has_value());  // exact, case-sensitive names
  EXPECT_FALSE(parse_nccl_level("NET").has_value());  // NET and DIS are not levels
  EXPECT_FALSE(parse_nccl_level("DIS").has_value());
  EXPECT_FALSE(parse_nccl_level("-1").has_value());
  EXPECT_FALSE(parse_nccl_level("").has_value());
}

TEST(TopoEnvParams, P2pDisableWinsOnlyWhenExactlyOne) {
  auto params = params_of({{"NCCL_P2P_DISABLE", "1"}, {"NCCL_P2P_LEVEL", "SYS"}});
  EXPECT_EQ(params.p2p_level, kPathLoc);
  EXPECT_EQ(params.p2p_echo, "NCCL_P2P_DISABLE set by environment to 1");

  params = params_of({{"NCCL_P2P_DISABLE", "0"}, {"NCCL_P2P_LEVEL", "PIX"}});
  EXPECT_EQ(params.p2p_level, kPathPix);
  EXPECT_EQ(params.p2p_echo, "NCCL_P2P_LEVEL set by environment to PIX");

  params = params_of({{"NCCL_P2P_LEVEL", "3"}});
  EXPECT_EQ(params.p2p_echo, "NCCL_P2P_LEVEL set by environment to PHB");  // the resolved name

  params = params_of({{"NCCL_P2P_LEVEL", "sys"}});
  EXPECT_FALSE(params.p2p_level.has_value());
  EXPECT_EQ(params.ignored.count("NCCL_P2P_LEVEL"), 1u);
}

TEST(TopoEnvParams, NumericParametersLikeNcclParam) {
  auto params = params_of({});
  EXPECT_EQ(params.nvb_disable, 0);
  EXPECT_EQ(params.pxn_c2c, 1);
  EXPECT_EQ(params.net_gdr_read, -2);
  EXPECT_EQ(params.net_gdr_c2c, 1);
  EXPECT_TRUE(params.used.empty());

  params = params_of({{"NCCL_PXN_DISABLE", "2"}, {"NCCL_NVB_DISABLE", "abc"}, {"NCCL_NET_GDR_READ", ""},
                      {"NCCL_PXN_C2C", "99999999999999999999"}});
  EXPECT_EQ(params.pxn_disable, 2);       // only exactly 1 disables PXN
  EXPECT_EQ(params.nvb_disable, 0);       // non-numeric reads as 0
  EXPECT_EQ(params.net_gdr_read, -2);     // empty keeps the default
  EXPECT_EQ(params.pxn_c2c, 1);           // out of range keeps the default
  EXPECT_EQ(params.used.size(), 4u);
  EXPECT_EQ(params.ignored.count("NCCL_PXN_C2C"), 1u);
}

TEST(TopoEnvParams, NetDevsPolicy) {
  EXPECT_EQ(params_of({{"NCCL_NETDEVS_POLICY", "all"}}).netdevs_policy, NetDevsPolicy::kAll);
  const auto max = params_of({{"NCCL_NETDEVS_POLICY", "MAX:2"}});
  EXPECT_EQ(max.netdevs_policy, NetDevsPolicy::kMax);
  EXPECT_EQ(max.netdevs_policy_max, 2);
  const auto bad = params_of({{"NCCL_NETDEVS_POLICY", "MAX:0"}});
  EXPECT_EQ(bad.netdevs_policy, NetDevsPolicy::kAuto);
  EXPECT_EQ(bad.ignored.count("NCCL_NETDEVS_POLICY"), 1u);
}

TEST(TopoEnvParams, GdrLevel) {
  const auto params = params_of({{"NCCL_NET_GDR_LEVEL", "PIX"}});
  EXPECT_EQ(params.gdr_level, kPathPix);
  EXPECT_EQ(params.gdr_echo, "NCCL_NET_GDR_LEVEL set by environment to PIX");
}

}  // namespace
}  // namespace linkscope::topo
