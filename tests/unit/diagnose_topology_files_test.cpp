// Offline diagnosis of topology files through the real topology model (XML -> topo::topology_view -> rules): each
// planted fault in tests/fixtures/topo-variants is found with the right id and GPU and nothing else; healthy
// public topologies give no finding.
#include <set>

#include <gtest/gtest.h>

#include "core/environment.hpp"
#include "core/error.hpp"
#include "diagnose/diagnose.hpp"
#include "support/run_command.hpp"
#include "topo/topology_model.hpp"
#include "support/model_versions.hpp"

namespace linkscope::diagnose {
namespace {

model::Run model_run(const std::string& xml, std::map<std::string, std::string> env = {}) {
  const Environment environment = Environment::from_map(env);
  model::Run run;
  run.environment.variables = environment.relevant();
  run.topology = topo::topology_view(topo::load_topology_file(test::fixture(xml), environment, test::nccl_2_28_9()));
  diagnose_into(run, true);
  return run;
}

std::vector<Finding> findings(const model::Run& run) { return run.findings; }

struct Planted {
  const char* xml;
  const char* id;
  std::vector<int> gpus;
  const char* evidence;  // a piece of the first evidence line
};

class DiagnoseTopologyFile : public ::testing::TestWithParam<Planted> {};

TEST_P(DiagnoseTopologyFile, FindsThePlantedFaultAndNothingElse) {
  const auto found = findings(model_run(GetParam().xml));
  ASSERT_EQ(found.size(), 1u) << model::to_json(model_run(GetParam().xml).findings).dump(2);
  EXPECT_EQ(found[0].id, GetParam().id);
  EXPECT_EQ(found[0].gpus, GetParam().gpus);
  EXPECT_GE(found[0].severity, Severity::kWarning);
  ASSERT_FALSE(found[0].evidence.empty());
  EXPECT_NE(found[0].evidence[0].find(GetParam().evidence), std::string::npos) << found[0].evidence[0];
}

INSTANTIATE_TEST_SUITE_P(
    Variants, DiagnoseTopologyFile,
    ::testing::Values(Planted{"topo-variants/hgx-h200-gpu3-pcie-gen4.xml", "pcie-link-degraded", {3},
                              "PCIe link Gen4 x16, NCCL weight 24.0; identical peers Gen5 x16, weight 48.0"},
                      Planted{"topo-variants/hgx-h200-gpu5-no-nvlink.xml", "nvlink-missing", {5},
                              "0000:ab:00.0): no NVL link in NCCL's model; 7 of its 7 identical peers"},
                      Planted{"topo-variants/hgx-h200-gpu2-17-nvlinks.xml", "nvlink-link-down", {2},
                              "17 NVLinks (NCCL weight 350.2 = links x 20.6), identical peers 18"},
                      Planted{"topo-variants/leonardo-booster-4xa100-no-nvlink-1d-c8.xml", "nvlink-missing", {0, 3},
                              "GPU0-GPU3: NCCL path NVB without a direct NVLink"}));

TEST(DiagnoseTopologyFiles, HealthyPublicTopologiesHaveNoFinding) {
  for (const char* xml : {"topo/hgx-h200-8gpu-nvswitch-vm-socketnic.xml", "topo/leonardo-booster-4xa100-nvlink-mesh-4nic.xml",
                          "topo/a100x2-nvlink-bcm-gen5-spr.xml", "topo/azure-ncv4-topo.xml",
                          "topo-variants/h200x2-nccl-topo-dump.xml", "topo-variants/gb200-style-c2c-2gpu-2nic.xml"}) {
    const model::Run run = model_run(xml);
    EXPECT_TRUE(findings(run).empty()) << xml << ": " << model::to_json(run.findings).dump(2);
    EXPECT_FALSE(run.hypotheses.empty()) << xml;
  }
}

TEST(DiagnoseTopologyFiles, EnvironmentWhatIfIsFoundOnTheModel) {
  const auto found = findings(model_run("topo-variants/h200x2-nccl-topo-dump.xml", {{"NCCL_P2P_DISABLE", "1"}}));
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].id, "nccl-env-path-removed");
  EXPECT_EQ(found[0].severity, Severity::kError);
  EXPECT_EQ(found[0].gpus, (std::vector<int>{0, 1}));
}

TEST(DiagnoseTopologyFiles, OneSidedNvlinkIsRefusedByTheModelWithFileAndLine) {
  EXPECT_THROW(model_run("topo-variants/a100x2-one-sided-nvlink.xml"), InputError);
}

}  // namespace
}  // namespace linkscope::diagnose
