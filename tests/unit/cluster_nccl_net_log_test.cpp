#include <gtest/gtest.h>

#include "cluster/nccl_net_log.hpp"
#include "support/run_command.hpp"

namespace linkscope::cluster {
namespace {

TEST(ClusterNcclNetLog, DevicesOfARealRoceLog) {
  // NCCL 2.23.4 on an A100 machine with one Broadcom RoCE port (tests/fixtures/topo).
  const std::string log = test::read_text(test::fixture("topo/a100x2-nvlink-bcm-gen5-spr.nccl-2.23.4-info.log"));
  ASSERT_FALSE(log.empty());
  const auto devices = logged_net_devices(log);
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].index, 0);
  EXPECT_EQ(devices[0].plugin, "IB");
  EXPECT_EQ(devices[0].name, "bnxt_re0");
  EXPECT_EQ(devices[0].port, 1);
  EXPECT_EQ(devices[0].gdr, false);  // "GPU Direct RDMA Disabled for HCA 0 'bnxt_re0'"
  EXPECT_TRUE(nics_used(log).empty());  // one host, P2P: no NET connection
}

TEST(ClusterNcclNetLog, SocketDevicesOfARealLog) {
  const std::string log = test::read_text(test::fixture("h200x2/nccl-2.28.3-info.log"));
  const auto devices = logged_net_devices(log);
  ASSERT_EQ(devices.size(), 1u);
  EXPECT_EQ(devices[0].plugin, "Socket");
  EXPECT_EQ(devices[0].name, "eth0");
  EXPECT_FALSE(devices[0].port);
}

TEST(ClusterNcclNetLog, NetConnectionsNameTheirNic) {
  const std::string log =
      "node-a:11:11 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/RoCE [RO]; OOB ib0:10.0.0.1<0>\n"
      "node-a:11:11 [0] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'\n"
      "node-a:11:11 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n"
      "node-a:11:11 [0] NCCL INFO Channel 01/0 : 0[0] -> 1[0] [send] via NET/IB/0/GDRDMA\n"
      "node-a:11:11 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/IB/1/GDRDMA\n"
      "node-a:11:11 [0] NCCL INFO Channel 00/0 : 0[0] -> 2[0] [send] via NET/IB/7\n";
  const auto devices = logged_net_devices(log);
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[1].name, "mlx5_3");
  EXPECT_EQ(devices[0].gdr, true);
  EXPECT_FALSE(devices[1].gdr);
  const auto uses = nics_used(log);
  ASSERT_EQ(uses.size(), 3u);
  EXPECT_EQ(uses[0].nic, "mlx5_0:1");
  EXPECT_EQ(uses[0].connections, 2);
  EXPECT_EQ(uses[0].transport, "NET/IB/GDRDMA");
  EXPECT_EQ(uses[1].nic, "mlx5_3:1");
  EXPECT_EQ(uses[2].nic, "NET device 7");  // not listed: named by index
}

TEST(ClusterNcclNetLog, SocketConnections) {
  const std::string log =
      "vm:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:192.0.2.2<0> [1]eth1:198.51.100.7<0>\n"
      "vm:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [send] via NET/Socket/1\n";
  const auto uses = nics_used(log);
  ASSERT_EQ(uses.size(), 1u);
  EXPECT_EQ(uses[0].nic, "eth1");
  EXPECT_EQ(uses[0].transport, "NET/Socket");
}

// NCCL 2.30.7's device list (net_ib/init.cc " [%d]%s:%d", then ":%d" rail, ":" and ":%d" plane when set, "/%s"),
// written for this test from that format.
TEST(ClusterNcclNetLog, RailAndPlaneOf2307) {
  const std::string log =
      "n:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1:3:0/IB [1]mlx5_1:1::1/IB [2]mlx5_2:1:5/RoCE [3]mlx5_3:1/IB [RO]; OOB "
      "ib0:10.0.0.1<0>\n"
      "n:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA 2 'mlx5_2'\n";
  const auto devices = logged_net_devices(log);
  ASSERT_EQ(devices.size(), 4u);
  EXPECT_EQ(devices[0].port, 1);
  EXPECT_EQ(devices[0].rail, 3);
  EXPECT_EQ(devices[0].plane, 0);
  EXPECT_FALSE(devices[1].rail);
  EXPECT_EQ(devices[1].plane, 1);
  EXPECT_EQ(devices[2].rail, 5);
  EXPECT_FALSE(devices[2].plane);
  EXPECT_EQ(devices[2].gdr, true);
  EXPECT_FALSE(devices[3].rail);
  EXPECT_FALSE(devices[3].plane);
}

// Issue 23: a 40 KB "NET/... : Using" line overflowed std::regex's recursion (SIGSEGV), and indices past INT_MAX
// threw std::out_of_range out of std::stoi.
TEST(ClusterNcclNetLog, HostileLinesNeitherCrashNorThrow) {
  std::string long_line = "n:1:1 [0] NCCL INFO NET/IB : Using";
  while (long_line.size() < 40000) long_line += " [0]mlx5_0:1/IB";
  const std::string log = long_line + "\n" +
                          "n:1:1 [0] NCCL INFO NET/IB : Using [99999999999]mlx5_9:1/IB [1]mlx5_1:99999999999/IB\n"
                          "n:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Enabled for HCA 99999999999 'mlx5_9'\n"
                          "n:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/IB/99999999999/GDRDMA\n";
  std::vector<LoggedNetDevice> devices;
  ASSERT_NO_THROW(devices = logged_net_devices(log));
  ASSERT_EQ(devices.size(), 1u);  // the long line is skipped; the out-of-range index drops that device only
  EXPECT_EQ(devices[0].name, "mlx5_1");
  EXPECT_FALSE(devices[0].port);
  std::vector<NicUse> uses;
  ASSERT_NO_THROW(uses = nics_used(log));
  ASSERT_EQ(uses.size(), 1u);
  EXPECT_EQ(uses[0].nic, "NET device ?");
}

}  // namespace
}  // namespace linkscope::cluster
