// Reports and diagnosis of a run of several hosts: system.hosts / host_differences (cluster/host_comparison) and
// measurements.cross_host (cluster/cross_host) through the host-differs and cross-host-slow rules and every renderer.
#include <gtest/gtest.h>

#include <functional>

#include "cluster/cross_host.hpp"
#include "cluster/host_comparison.hpp"
#include "cluster/representatives.hpp"
#include "diagnose/diagnose.hpp"
#include "model/run_file.hpp"
#include "report/cluster_tables.hpp"
#include "report/html_report.hpp"
#include "report/markdown_report.hpp"
#include "report/summary_text.hpp"
#include "support/run_command.hpp"
#include "unit/cluster_test_runs.hpp"

namespace linkscope {
namespace {

using test::cluster_run;
using test::fixture_host;

const model::Finding* finding(const model::Run& run, const std::string& id) {
  for (const auto& f : run.findings) {
    if (f.id == id) return &f;
  }
  return nullptr;
}

TEST(ClusterReport, RulesNameTheDifferentAndTheSlowHost) {
  const model::Run run = cluster_run();
  const model::Finding* differs = finding(run, "host-differs");
  ASSERT_NE(differs, nullptr);
  EXPECT_EQ(differs->severity, model::Severity::kWarning);
  EXPECT_EQ(differs->title, "1 host(s) differ from the others: NVIDIA driver");
  ASSERT_FALSE(differs->evidence.empty());
  EXPECT_EQ(differs->evidence[0], "NVIDIA driver: 580.159.04 on 2 host(s); node-c has 575.57.08");
  EXPECT_EQ(differs->cause, "a different NVIDIA driver on node-c");
  const model::Finding* slow = finding(run, "cross-host-slow");
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->severity, model::Severity::kWarning);
  EXPECT_EQ(slow->title, "Between hosts: node-c (mlx5_0:1)");
  ASSERT_FALSE(slow->evidence.empty());
  EXPECT_NE(slow->evidence[0].find("node-c: median 23.5 GB/s over its 2 pair(s) through mlx5_0:1 vs 47.0 GB/s over "
                                   "the 1 pair(s) without it (50% lower); differs: NVIDIA driver 575.57.08"),
            std::string::npos)
      << slow->evidence[0];
}

TEST(ClusterReport, EveryFormatHasTheHostsAndTheMatrix) {
  const model::Run run = cluster_run();
  const std::string html = report::render_html(run);
  EXPECT_NE(html.find("<section id=\"hosts\">"), std::string::npos);
  EXPECT_NE(html.find("<section id=\"cross-host\">"), std::string::npos);
  EXPECT_NE(html.find("<a href=\"#cross-host\">Cross-host</a>"), std::string::npos);
  EXPECT_NE(html.find("A cluster of 3 hosts (3 ranks)"), std::string::npos);
  EXPECT_NE(html.find("cross-host"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("575.57.08"), std::string::npos);
  const std::string md = report::render_markdown(run, {});
  EXPECT_NE(md.find("## Hosts\n"), std::string::npos);
  EXPECT_NE(md.find("## Cross-host\n"), std::string::npos);
  EXPECT_NE(md.find("| node-c | 23.5 | 23.5 | - |"), std::string::npos) << md;
  const std::string summary = report::render_summary_text(run);
  EXPECT_NE(summary.find("  cluster: 3 host(s), 3 rank(s), 2 group(s) of identical hosts\n"), std::string::npos) << summary;
  EXPECT_NE(summary.find("  differs: NVIDIA driver: 580.159.04 on most hosts; node-c 575.57.08\n"), std::string::npos);
  EXPECT_NE(summary.find("  cross-host sendrecv: 3 pair(s), 23.5 to 47.0 GB/s per direction\n"), std::string::npos);
  EXPECT_NE(summary.find("  slow: node-c: median 23.5 GB/s"), std::string::npos);
  const std::string text = report::render_hosts_text(run) + report::render_cross_host_text(run);
  EXPECT_NE(text.find("  node-a  -       47.0    23.5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("NVIDIA driver  580.159.04 (2 host(s): node-a, node-b)  node-c: 575.57.08"), std::string::npos) << text;
}

TEST(ClusterReport, ASingleHostRunHasNoClusterSections) {
  const model::Run run = model::read_run_file(test::fixture("runs/h200x2-healthy.json"));
  EXPECT_EQ(report::render_html(run).find("id=\"hosts\""), std::string::npos);
  EXPECT_EQ(report::render_markdown(run, {}).find("## Cross-host"), std::string::npos);
  EXPECT_TRUE(report::cluster_summary_lines(run).empty());
  EXPECT_TRUE(report::cross_host_heatmap_svg(run).empty());
  EXPECT_EQ(finding(run, "host-differs"), nullptr);
}

TEST(ClusterReport, FailedPairsAreAnError) {
  model::Run run = cluster_run();
  auto& pair = run.measurements.cross_host->pairs[0];
  pair.status = "timeout";
  pair.reason = "no progress for 60 s";
  diagnose::diagnose_into(run);
  const model::Finding* slow = finding(run, "cross-host-slow");
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->severity, model::Severity::kError);
  ASSERT_FALSE(slow->evidence.empty());
  EXPECT_EQ(slow->evidence[0], "node-a <-> node-b: timeout: no progress for 60 s");
}

TEST(ClusterRepresentatives, TheRankWhoseGpuIsClosestToTheNicMeasures) {
  // Host a: ranks 0 (GPU 0, SYS to mlx5_0) and 1 (GPU 1, PIX); host b: rank 2 without a GPU.
  std::vector<cluster::RankHello> hellos(3);
  for (int r = 0; r < 3; ++r) {
    hellos[static_cast<std::size_t>(r)].rank = r;
    hellos[static_cast<std::size_t>(r)].host = {r < 2 ? "a" : "b", r < 2 ? "a" : "b", "hostname"};
  }
  hellos[0].cuda_device = 0;
  hellos[1].cuda_device = 1;
  hellos[2].cuda_device_reason = "no GPU visible";
  const cluster::Roster roster = cluster::make_roster(hellos);
  const auto hosts = cluster::compare_hosts({fixture_host("a", 0), fixture_host("b", 2)});
  const auto chosen = cluster::choose_representatives(roster, hosts);
  ASSERT_EQ(chosen.size(), 2u);
  EXPECT_EQ(chosen[0].rank, 1);
  EXPECT_EQ(chosen[0].nic, "mlx5_0");
  EXPECT_EQ(chosen[0].reason, "rank 1: GPU 1 is PIX to mlx5_0");
  EXPECT_EQ(chosen[1].rank, -1);
  EXPECT_EQ(chosen[1].reason, "no rank on this host drives a GPU (rank 2: no GPU visible)");
  // Without relations the lowest rank with a GPU stands for the host.
  auto bare = fixture_host("a", 0);
  test::edit_facts(bare).gpu_nics.clear();
  const auto fallback = cluster::choose_representatives(roster, cluster::compare_hosts({bare, fixture_host("b", 2)}));
  EXPECT_EQ(fallback[0].rank, 0);
  EXPECT_EQ(fallback[0].reason, "rank 0: GPU 0 (no GPU-NIC relation known)");
}

}  // namespace
}  // namespace linkscope
