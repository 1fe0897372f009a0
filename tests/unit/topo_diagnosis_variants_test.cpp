// The data later diagnosis rules need, on realistic degraded variants of the HGX H200 dump: a GPU trained at a
// lower PCIe generation, a GPU without NVLinks, a GPU with fewer NVLinks than its peers.
#include <gtest/gtest.h>

#include "support/run_command.hpp"
#include "topo/nccl_log_printer.hpp"
#include "topo/smi_matrix.hpp"
#include "topo/topology_model.hpp"
#include "support/model_versions.hpp"

namespace linkscope::topo {
namespace {

nlohmann::json model_json_of(const std::string& fixture) {
  const auto model = load_topology_string(test::read_text(test::fixture(fixture)), fixture, Environment::from_map({}), test::nccl_2_28_9());
  return model::to_json(topology_view(model));
}

const nlohmann::json& node(const nlohmann::json& model, const std::string& id) {
  for (const auto& n : model["nodes"]) {
    if (n["id"] == id) return n;
  }
  static const nlohmann::json kNone;
  ADD_FAILURE() << "no node " << id;
  return kNone;
}

const nlohmann::json& path(const nlohmann::json& model, const std::string& from, const std::string& to) {
  for (const auto& p : model["paths"]) {
    if (p["from"] == from && p["to"] == to) return p;
  }
  static const nlohmann::json kNone;
  ADD_FAILURE() << "no path " << from << " -> " << to;
  return kNone;
}

TEST(TopoDiagnosisVariants, GpuAtALowerPcieGenerationThanItsSiblings) {
  const auto model = model_json_of("topo-variants/hgx-h200-gpu3-pcie-gen4.xml");
  const auto& slow = node(model, "GPU/0-9b000");
  EXPECT_EQ(slow["link_speed"], "16.0 GT/s PCIe");
  EXPECT_EQ(slow["pcie"]["gen"], 4);
  EXPECT_EQ(slow["pcie"]["width"], 16);
  EXPECT_EQ(slow["pcie"]["bw"], 24.0);
  EXPECT_EQ(slow["busid"], "0000:9b:00.0");
  for (const char* sibling : {"GPU/0-83000", "GPU/0-8b000", "GPU/0-93000"}) {
    EXPECT_EQ(node(model, sibling)["pcie"]["gen"], 5) << sibling;
    EXPECT_EQ(node(model, sibling)["pcie"]["bw"], 48.0) << sibling;
  }
  EXPECT_EQ(path(model, "GPU/0-9b000", "CPU/0-0")["bw"], 24.0);
  EXPECT_EQ(path(model, "GPU/0-93000", "CPU/0-0")["bw"], 48.0);
  EXPECT_EQ(model["total_bw"], 370.8);  // NVLink still dominates NCCL's search start
}

TEST(TopoDiagnosisVariants, GpuWithoutNvlinks) {
  const auto model = load_topology_string(test::read_text(test::fixture("topo-variants/hgx-h200-gpu5-no-nvlink.xml")),
                                          "v.xml", Environment::from_map({}), test::nccl_2_28_9());
  const auto json = model::to_json(topology_view(model));
  EXPECT_EQ(node(json, "GPU/0-ab000")["nvlink_count"], 0);
  EXPECT_EQ(node(json, "GPU/0-a3000")["nvlink_count"], 18);
  // Same socket: through the CPU (PHB), P2P off and diverted; other socket: SYS. No NVS entry at all.
  EXPECT_EQ(path(json, "GPU/0-ab000", "GPU/0-a3000")["type"], "PHB");
  EXPECT_EQ(path(json, "GPU/0-ab000", "GPU/0-a3000")["count"], 4);
  EXPECT_EQ(path(json, "GPU/0-ab000", "GPU/0-83000")["type"], "SYS");
  const auto lines = nccl_path_lines(model);
  EXPECT_EQ(lines[5].find("NVS/0-0"), std::string::npos) << lines[5];
  EXPECT_NE(lines[4].find("NVS/0-0 (1/370.8/NVL)"), std::string::npos) << lines[4];
  for (const auto& d : json["p2p"]) {
    if (d["src"] == "GPU/0-ab000" && d["dst"] != "GPU/0-ab000") {
      EXPECT_FALSE(d["p2p"].get<bool>()) << d;
    }
  }
  const auto matrix = relation_matrix(model);
  EXPECT_EQ(matrix.cells[5][4], "PHB");
  EXPECT_EQ(matrix.cells[5][0], "SYS");
  EXPECT_EQ(matrix.cells[4][0], "NV18");
}

TEST(TopoDiagnosisVariants, GpuWithFewerNvlinksThanItsPeers) {
  const auto model = load_topology_string(
      test::read_text(test::fixture("topo-variants/hgx-h200-gpu2-17-nvlinks.xml")), "v.xml", Environment::from_map({}), test::nccl_2_28_9());
  const auto json = model::to_json(topology_view(model));
  const auto& gpu2 = node(json, "GPU/0-93000");
  EXPECT_EQ(gpu2["nvlink_count"], 17);
  ASSERT_EQ(gpu2["nvlinks"].size(), 1u);  // all four switch chips are the one NVS node
  EXPECT_EQ(gpu2["nvlinks"][0]["remote"], "NVS/0-0");
  EXPECT_EQ(gpu2["nvlinks"][0]["bw"], 350.2);
  EXPECT_EQ(node(json, "GPU/0-8b000")["nvlink_count"], 18);
  EXPECT_EQ(path(json, "GPU/0-83000", "GPU/0-93000")["bw"], 350.2);
  EXPECT_EQ(path(json, "GPU/0-83000", "GPU/0-8b000")["bw"], 370.8);
  const auto matrix = relation_matrix(model);
  EXPECT_EQ(matrix.cells[2][0], "NV17");
  EXPECT_EQ(matrix.cells[0][2], "NV18");
}

TEST(TopoDiagnosisVariants, H200x2CopyMatchesTheOriginal) {
  EXPECT_EQ(test::read_text(test::fixture("topo-variants/h200x2-nccl-topo-dump.xml")),
            test::read_text(test::fixture("h200x2/nccl-topo-dump.xml")));
}

}  // namespace
}  // namespace linkscope::topo
