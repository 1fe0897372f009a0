// The synthesized XML through linkscope's NCCL model (src/topo): the same paths as NCCL's own dump.
#include <gtest/gtest.h>

#include "discover/path_compare.hpp"
#include "discover/xml_synthesis.hpp"
#include "discover_recorded_h200x2.hpp"
#include "discover_snapshot.hpp"
#include "topo/nccl_log_printer.hpp"
#include "topo/topology_model.hpp"

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
  const auto ours = topo::nccl_path_lines(topo::load_topology_string(synthesized.xml, "synthesized", env));
  const auto dump = topo::nccl_path_lines(topo::load_topology_file(test::fixture("h200x2/nccl-topo-dump.xml"), env));
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
  const auto model = topo::load_topology_string(synthesize_topology_xml(facts, env).xml, "synthesized", env);
  const auto lines = topo::nccl_path_lines(model);
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines[0].rfind("GPU/0-70 :GPU/0-70 (0/5000.0/LOC) NVS/0-0 (1/370.8/NVL)", 0), 0u) << lines[0];
}

}  // namespace
}  // namespace linkscope::discover
