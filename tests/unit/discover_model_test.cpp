// The synthesized XML through linkscope's NCCL model (src/topo): the same paths as NCCL's own dump.
#include <gtest/gtest.h>

#include "discover/live_model_check.hpp"
#include "discover/live_system.hpp"
#include "discover/path_compare.hpp"
#include "discover/xml_synthesis.hpp"
#include "report/topo_live_text.hpp"
#include "discover_recorded_h200x2.hpp"
#include "discover_snapshot.hpp"
#include "topo/nccl_log_printer.hpp"
#include "topo/topology_model.hpp"
#include "support/model_versions.hpp"

namespace linkscope::discover {
namespace {

TEST(DiscoverModel, SynthesizedH200x2XmlGivesTheDumpsPathLines) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  const Environment env = Environment::from_map({});
  const NvmlSnapshot nvml = test::h200x2_nvml_snapshot();
  const SystemFacts facts =
      assemble_system_facts(read_host_facts(SysfsRoot(snapshot.root())), nvml, test::h200x2_cuda_snapshot(nvml, {0, 1}), env);
  const SynthesizedTopology synthesized = synthesize_topology_xml(facts, env);
  const auto ours = topo::nccl_path_lines(topo::load_topology_string(synthesized.xml, "synthesized", env, test::nccl_2_28_9()));
  const auto dump = topo::nccl_path_lines(topo::load_topology_file(test::fixture("h200x2/nccl-topo-dump.xml"), env, test::nccl_2_28_9()));
  EXPECT_EQ(ours, dump);
  ASSERT_EQ(ours.size(), 3u);  // two GPUs and the socket NIC's NET (2.28.9 keeps it)
  EXPECT_EQ(ours[0], "GPU/0-60 :GPU/0-60 (0/5000.0/LOC) GPU/0-70 (2/370.8/NVL) NVS/0-0 (1/370.8/NVL) "
                     "CPU/0-ffffffffffffff (1/48.0/PHB) NET/0-0 (3/1.2/PHB) ");
  // NCCL 2.28.3 printed the same GPU paths without NET (it trimmed NET nodes on one host).
  const auto printed = nccl_log_path_lines(test::read_text(test::fixture("h200x2/nccl-2.28.3-info.log")));
  const PathComparison versus_log = compare_path_lines(ours, printed, "2.28.3");
  EXPECT_TRUE(versus_log.equivalent());
  EXPECT_EQ(versus_log.differences.size(), 3u);
}

TEST(DiscoverModel, HiddenGpuChangesTheModelToOneRank) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  const Environment env = Environment::from_map({{"CUDA_VISIBLE_DEVICES", "1"}});
  const NvmlSnapshot nvml = test::h200x2_nvml_snapshot();
  const SystemFacts facts =
      assemble_system_facts(read_host_facts(SysfsRoot(snapshot.root())), nvml, test::h200x2_cuda_snapshot(nvml, {1}), env);
  const auto model = topo::load_topology_string(synthesize_topology_xml(facts, env).xml, "synthesized", env, test::nccl_2_28_9());
  const auto lines = topo::nccl_path_lines(model);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0].rfind("GPU/0-70 :GPU/0-70 (0/5000.0/LOC) NVS/0-0 (1/370.8/NVL)", 0), 0u) << lines[0];
}

// The live flow after discovery, with what NCCL 2.28.3 itself wrote on the h200x2 machine as the child's result.
TEST(DiscoverModel, LiveCheckAgainstNcclsOwnDumpAndLog) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  const Environment env = Environment::from_map({});
  const NvmlSnapshot nvml = test::h200x2_nvml_snapshot();
  LiveDiscovery live;
  live.facts =
      assemble_system_facts(read_host_facts(SysfsRoot(snapshot.root())), nvml, test::h200x2_cuda_snapshot(nvml, {0, 1}), env);
  live.synthesized = synthesize_topology_xml(live.facts, env);
  live.nccl = NcclProbeResult{};
  live.nccl->status = "ok";
  live.nccl->nccl_version = "2.28.3";
  live.nccl->device_count = 2;
  live.nccl->dump_xml = test::read_text(test::fixture("h200x2/nccl-topo-dump.xml"));
  live.nccl->log = test::read_text(test::fixture("h200x2/nccl-2.28.3-info.log"));

  const LiveModelCheck check = check_live_model(live, env, test::nccl_2_28_9());
  ASSERT_TRUE(check.ours.has_value()) << check.reason;
  ASSERT_TRUE(check.versus_nccl_dump.has_value());
  EXPECT_TRUE(check.versus_nccl_dump->identical());
  ASSERT_TRUE(check.versus_nccl_log.has_value());
  EXPECT_TRUE(check.versus_nccl_log->equivalent());
  EXPECT_FALSE(check.versus_nccl_log->identical());
  EXPECT_NE(check.ours->relation_matrix.find("NV18"), std::string::npos) << check.ours->relation_matrix;
  EXPECT_NE(check.ours->nccl_log.find("=== System : maxBw 370.8 totalBw 370.8 ==="), std::string::npos);

  const model::Run run = topo_live_run(live, check, env, {"linkscope", "topo"});
  const std::string text = report::render_topo_live_text(run);
  EXPECT_NE(text.find("  GPU/0-60 :GPU/0-60 (0/5000.0/LOC) GPU/0-70 (2/370.8/NVL)"), std::string::npos) << text;
  // The report prints the run's model section as NCCL prints its paths: exactly the model's own lines.
  for (const auto& line : check.ours->path_lines) EXPECT_NE(text.find("\n  " + line + "\n"), std::string::npos) << line;
  EXPECT_NE(text.find("synthesized XML vs NCCL's dump (both through linkscope's model): identical (3 path lines)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("linkscope's paths vs the paths NCCL printed: 3 difference(s), all explained by NCCL's version"),
            std::string::npos)
      << text;

  EXPECT_NEAR(run.topology.max_bw, 370.8, 1e-3);
  ASSERT_TRUE(run.system.nccl_topology.has_value());
  EXPECT_TRUE(run.system.nccl_topology->versus_nccl_dump->identical);
  EXPECT_TRUE(run.system.nccl_topology->versus_nccl_log->equivalent);
  EXPECT_EQ(run.system.nccl_topology->path_lines.size(), 2u);
  EXPECT_TRUE(run.errors.empty()) << run.errors.size() << " errors, the first: " << run.errors.front().message;
}

TEST(DiscoverModel, ADifferentNcclDumpIsReportedNotHidden) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  const Environment env = Environment::from_map({});
  const NvmlSnapshot nvml = test::h200x2_nvml_snapshot();
  LiveDiscovery live;
  live.facts =
      assemble_system_facts(read_host_facts(SysfsRoot(snapshot.root())), nvml, test::h200x2_cuda_snapshot(nvml, {0, 1}), env);
  live.synthesized = synthesize_topology_xml(live.facts, env);
  live.nccl = NcclProbeResult{};
  live.nccl->status = "ok";
  live.nccl->nccl_version = "2.28.9";
  // NCCL saw only 16 NVLinks on GPU 0 (two down): the dump's model differs from ours.
  std::string dump = test::read_text(test::fixture("h200x2/nccl-topo-dump.xml"));
  dump.replace(dump.find("count=\"18\""), 10, "count=\"16\"");
  live.nccl->dump_xml = dump;
  const LiveModelCheck check = check_live_model(live, env, test::nccl_2_28_9());
  ASSERT_TRUE(check.versus_nccl_dump.has_value());
  EXPECT_FALSE(check.versus_nccl_dump->equivalent());
  EXPECT_FALSE(check.versus_nccl_log.has_value());  // no log lines given
}

}  // namespace
}  // namespace linkscope::discover
