// The renderers of a run of several hosts (report/cluster_tables) from the typed model alone: model::System's hosts,
// groups and differences, and model::CrossHost, built here as src/cluster records them (three hosts; node-c has an
// older driver and its pairs run at half speed). cluster_report_test.cpp runs the same renderers on what the
// cluster code itself produces.
#include <gtest/gtest.h>

#include "golden/saved_run.hpp"
#include "model/run_file.hpp"
#include "report/cluster_tables.hpp"
#include "report/html_report.hpp"
#include "report/markdown_report.hpp"
#include "report/summary_text.hpp"
#include "report/topo_live_text.hpp"
#include "support/run_command.hpp"

namespace linkscope::report {
namespace {

model::Host host(const std::string& name, int rank, int group, const std::string& driver) {
  model::Host h;
  h.name = h.hostname = name;
  h.identity_source = "hostname";
  h.ranks = {rank};
  h.leader = rank;
  h.group = group;
  h.traits = {{"driver", driver},  {"cuda_driver", "13.0"}, {"nccl", "2.28.9"}, {"gpu_models", "2 x NVIDIA H200"},
              {"nic_count", "1"}, {"nic_links", "mlx5_0 400 Gb/s"}};
  return h;
}

model::CrossHostPair pair(int a, int b, double gbps) {
  model::CrossHostPair p;
  p.a.host = a;
  p.b.host = b;
  p.a.rank = a;
  p.b.rank = b;
  p.a.cuda_device = p.b.cuda_device = 1;
  p.a.nic = p.b.nic = "mlx5_0:1";
  p.a.transport = p.b.transport = "NET/IB/GDRDMA";
  p.bytes = 256ULL << 20;
  p.bandwidth_gbps = gbps;
  return p;
}

// The doctor run of rank 0 (node-a: the 2 x H200 facts) with every host's traits and the cross-host tests.
model::Run cluster_run() {
  model::Run run = model::read_run_file(test::fixture("runs/h200x2-healthy.json"));
  run.config.host = "node-a";
  run.environment.launch = "mpirun";
  auto c = host("node-c", 2, 1, "575.57.08");
  c.differences = {"NVIDIA driver 575.57.08"};
  run.system.hosts = {host("node-a", 0, 0, "580.159.04"), host("node-b", 1, 0, "580.159.04"), c};
  run.system.host_groups = {{"node-a", "node-b"}, {"node-c"}};
  run.system.host_differences = {{"driver", "NVIDIA driver", "580.159.04", {"node-a", "node-b"}, {{"node-c", "575.57.08"}}}};
  model::CrossHost cross;
  cross.hosts = {"node-a", "node-b", "node-c"};
  cross.schedule = "rounds";
  cross.sizes_bytes = {256ULL << 20};
  cross.pairs = {pair(0, 1, 47.0), pair(0, 2, 23.5), pair(1, 2, 23.5)};
  model::SlowCulprit slow;
  slow.kind = "host";
  slow.host = 2;
  slow.nic = "mlx5_0:1";
  slow.measured_gbps = 23.5;
  slow.reference_gbps = 47.0;
  slow.evidence = "node-c: median 23.5 GB/s over its 2 pair(s) through mlx5_0:1 vs 47.0 GB/s over the 1 pair(s) "
                  "without it (50% lower)";
  cross.slow = {slow};
  run.measurements.cross_host = cross;
  return run;
}

TEST(ClusterTables, HostsAndCrossHostTablesFromTheTypedModel) {
  const model::Run run = cluster_run();
  const std::string text = render_hosts_text(run) + render_cross_host_text(run);
  EXPECT_NE(text.find("  node-a  -       47.0    23.5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("NVIDIA driver  580.159.04 (2 host(s): node-a, node-b)  node-c: 575.57.08"), std::string::npos) << text;
  EXPECT_NE(text.find("node-a GPU 1 <-> node-c GPU 1"), std::string::npos) << text;
  EXPECT_NE(text.find("  node-c  rank 2 "), std::string::npos) << text;
  EXPECT_NE(render_markdown(run, {}).find("| node-c | 23.5 | 23.5 | - |"), std::string::npos);
  EXPECT_NE(render_summary_text(run).find("  slow: node-c: median 23.5 GB/s"), std::string::npos);
  EXPECT_NE(render_html(run).find("A cluster of 3 hosts (3 ranks)"), std::string::npos);
}

TEST(ClusterTables, AFailedPairShowsItsStatusInTheMatrix) {
  model::Run run = cluster_run();
  auto& failed = run.measurements.cross_host->pairs[0];
  failed.status = "timeout";
  failed.reason = "no progress for 60 s";
  failed.bandwidth_gbps.reset();
  const Table matrix = cross_host_matrix_table(run);
  ASSERT_EQ(matrix.rows.size(), 3u);
  EXPECT_EQ(matrix.rows[0][2].text, "timeout");
  EXPECT_EQ(matrix.rows[0][2].css_class, "sev-error");
  EXPECT_EQ(matrix.rows[1][1].text, "timeout");
  EXPECT_NE(render_cross_host_text(run).find("timeout (no progress for 60 s)"), std::string::npos);
  EXPECT_NE(render_summary_text(run).find("2 pair(s), 23.5 to 23.5 GB/s per direction, 1 failed"), std::string::npos);
}

TEST(ClusterTables, SavedClusterAndTopoRunsPrintWhatTheLiveCommandsPrinted) {
  model::Run cluster = cluster_run();
  cluster.config.subcommand = "cluster";
  const std::string live = render_cluster_text(cluster);
  EXPECT_EQ(live.rfind("linkscope cluster: 3 host(s), 3 rank(s) under MPI (mpirun)\n\nHosts: 3 host(s) in 2 group(s)", 0), 0u)
      << live;
  test::expect_report_prints_the_live_text(cluster, live);

  model::Run topo = cluster_run();
  topo.config.subcommand = "topo";
  topo.measurements = {};
  topo.system.sysfs_root = "/";
  const std::string topo_text = render_topo_text(topo);
  EXPECT_EQ(topo_text.rfind("linkscope topo: 3 host(s), 3 rank(s) under MPI (mpirun)\n\n", 0), 0u) << topo_text;
  EXPECT_NE(topo_text.find("\nThis host in detail: node-a (rank 0)\nlinkscope topo: driver 580.159.04"), std::string::npos)
      << topo_text;
  test::expect_report_prints_the_live_text(topo, topo_text);
}

}  // namespace
}  // namespace linkscope::report
