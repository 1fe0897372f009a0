// The model's nvidia-smi-style matrix against nvidia-smi's own output for the same machines (spec §12).
#include <gtest/gtest.h>

#include <sstream>

#include "support/run_command.hpp"
#include "topo/smi_matrix.hpp"
#include "support/model_versions.hpp"

namespace linkscope::topo {
namespace {

// The GPU/NIC cells of an `nvidia-smi topo -m` capture, NODE written as PHB (NCCL has one CPU node per NUMA
// domain and cannot tell PHB from NODE).
std::vector<std::vector<std::string>> smi_cells(const std::string& text, std::size_t devices) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line) && rows.size() < devices) {
    // Device rows start with their label; the header row starts with white space.
    if (line.rfind("GPU", 0) != 0 && line.rfind("NIC", 0) != 0) continue;
    std::istringstream words(line);
    std::string label;
    words >> label;
    std::vector<std::string> row;
    std::string cell;
    while (row.size() < devices && words >> cell) row.push_back(cell == "NODE" ? "PHB" : cell);
    rows.push_back(row);
  }
  return rows;
}

TEST(TopoSmiMatrix, LeonardoMatchesNvidiaSmi) {
  const auto model = load_topology_string(
      test::read_text(test::fixture("topo/leonardo-booster-4xa100-nvlink-mesh-4nic.xml")), "l.xml",
      Environment::from_map({}), test::nccl_2_28_9());
  const auto matrix = relation_matrix(model);
  EXPECT_EQ(matrix.labels, (std::vector<std::string>{"GPU0", "GPU1", "GPU2", "GPU3", "NIC0", "NIC1", "NIC2", "NIC3"}));
  EXPECT_EQ(matrix.cells,
            smi_cells(test::read_text(test::fixture("topo/leonardo-booster-4xa100-nv4-4nic.nvidia-smi-topo.txt")), 8));
  EXPECT_EQ(matrix.cpu_affinity[0], "0-15");
  EXPECT_EQ(matrix.numa_affinity[0], "0");
  EXPECT_EQ(matrix.nic_legend[0], "NIC0: mlx5_0 (NET/0-0)");
}

TEST(TopoSmiMatrix, HgxGpusMatchNvidiaSmi) {
  const auto model = load_topology_string(
      test::read_text(test::fixture("topo/hgx-h200-8gpu-nvswitch-vm-socketnic.xml")), "h.xml",
      Environment::from_map({}), test::nccl_2_28_9());
  const auto matrix = relation_matrix(model);
  const auto smi = smi_cells(test::read_text(test::fixture("topo/hgx-h200-8gpu-8nic.nvidia-smi-topo.txt")), 8);
  // The capture's NICs are VFs that are not in the NCCL XML; compare the GPU block.
  for (std::size_t r = 0; r < 8; ++r) {
    const std::vector<std::string> gpu_cells(matrix.cells[r].begin(), matrix.cells[r].begin() + 8);
    EXPECT_EQ(gpu_cells, smi[r]) << "row " << r;
  }
  EXPECT_EQ(matrix.labels.back(), "NIC0");  // the socket NIC listed under both CPUs is one device
  EXPECT_EQ(matrix.cpu_affinity[4], "96-191");
}

TEST(TopoSmiMatrix, CpuListsFromAffinityMasks) {
  EXPECT_EQ(cpu_list_from_mask("0000ffff"), "0-15");
  EXPECT_EQ(cpu_list_from_mask("00000000,ffffffff,00000000,ffffffff"), "0-31,64-95");
  EXPECT_EQ(cpu_list_from_mask("00000005"), "0,2");
  EXPECT_EQ(cpu_list_from_mask(""), "N/A");
}

}  // namespace
}  // namespace linkscope::topo
