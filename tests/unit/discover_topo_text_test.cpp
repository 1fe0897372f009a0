#include <gtest/gtest.h>

#include <regex>

#include "discover/live_system.hpp"
#include "discover/path_compare.hpp"
#include "discover/system_facts.hpp"
#include "discover/system_model.hpp"
#include "discover_fake_sysfs.hpp"
#include "discover_recorded_h200x2.hpp"
#include "discover_snapshot.hpp"
#include "model/run_file.hpp"
#include "report/report_render.hpp"
#include "report/topo_live_text.hpp"

namespace linkscope::report {
namespace {

using namespace discover;

std::string without_ansi(const std::string& text) { return std::regex_replace(text, std::regex("\x1b\\[[0-9;]*m"), ""); }

SystemFacts h200x2(const std::string& root, const std::vector<unsigned>& visible, const Environment& env) {
  const NvmlSnapshot nvml = test::h200x2_nvml_snapshot();
  return assemble_system_facts(read_host_facts(SysfsRoot(root)), nvml, test::h200x2_cuda_snapshot(nvml, visible), env);
}

// A `linkscope topo` run of the facts, as the live command records it.
model::Run topo_run(const SystemFacts& facts) {
  model::Run run = model::make_run("topo", {"linkscope", "topo"});
  run.system = system_model(facts);
  return run;
}

TEST(DiscoverTopoText, MatrixEqualsNvidiaSmiTopoM) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  const SystemFacts facts = h200x2(snapshot.root(), {0, 1}, Environment::from_map({}));
  EXPECT_EQ(render_smi_matrix(system_model(facts)),
            without_ansi(test::read_text(test::fixture("h200x2/nvidia-smi-topo-m.txt"))));
}

TEST(DiscoverTopoText, MatrixIgnoresCudaVisibleDevicesAsNvidiaSmiDoes) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  const SystemFacts facts = h200x2(snapshot.root(), {1}, Environment::from_map({{"CUDA_VISIBLE_DEVICES", "1"}}));
  EXPECT_EQ(render_smi_matrix(system_model(facts)),
            without_ansi(test::read_text(test::fixture("h200x2/nvidia-smi-topo-m.txt"))));
  const std::string text = render_topo_live_text(topo_run(facts));
  EXPECT_NE(text.find("2 GPU(s) in NVML, 1 visible to CUDA"), std::string::npos) << text;
  EXPECT_NE(text.find("NVML GPU 0 (0000:00:06.0, GPU-db0b843c-9616-d6f1-74d8-de3fe79dca28) is not visible to CUDA: "
                      "CUDA_VISIBLE_DEVICES=1 does not select it"),
            std::string::npos)
      << text;
}

TEST(DiscoverTopoText, P2pReadMatrixEqualsNvidiaSmiTopoP2pR) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  const SystemFacts facts = h200x2(snapshot.root(), {0, 1}, Environment::from_map({}));
  const std::string capture = without_ansi(test::read_text(test::fixture("h200x2/nvidia-smi-topo-p2p-r.txt")));
  const model::System system = system_model(facts);
  EXPECT_EQ(render_p2p_matrix(system, "read"), capture.substr(0, capture.find("\n\n") + 1));
  EXPECT_EQ(render_p2p_matrix(system, "write"), " \tGPU0\tGPU1\t\n GPU0\tX\t?\t\n GPU1\t?\tX\t\n");  // not captured
}

TEST(DiscoverTopoText, LiveTextShowsGpusNvlinksAndTheNcclComparison) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  const SystemFacts facts = h200x2(snapshot.root(), {0, 1}, Environment::from_map({}));
  model::Run run = topo_run(facts);
  model::NcclTopologyProbe nccl;
  nccl.status = "ok";
  nccl.nccl_version = "2.28.3";
  nccl.device_count = 2;
  nccl.init_seconds = 1.25;
  const std::string ours = "GPU/0-60 :GPU/0-60 (0/5000.0/LOC) NET/0-0 (3/1.2/PHB) ";
  nccl.versus_nccl_log = path_comparison_model(compare_path_lines({ours}, {"GPU/0-60 :GPU/0-60 (0/5000.0/LOC) "}, "2.28.3"));
  run.system.nccl_topology = nccl;
  run.topology.present = true;
  run.topology.nodes.resize(1);
  run.topology.nodes[0].id = "GPU/0-60";
  run.topology.nodes[0].type = "GPU";
  run.topology.paths = {{"GPU/0-60", "GPU/0-60", 0, 5000.0, "LOC", {}, std::nullopt},
                        {"GPU/0-60", "NET/0-0", 3, 1.2, "PHB", {}, std::nullopt}};
  const std::string text = render_topo_live_text(run);
  EXPECT_NE(text.find("\n  " + ours + "\n"), std::string::npos) << text;  // the model's paths as NCCL prints them
  EXPECT_NE(text.find("(ncclCommInitAll 1.25 s)"), std::string::npos) << text;
  EXPECT_NE(text.find("driver 580.159.04 (CUDA 13.0)"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU0\t X \tNV18"), std::string::npos) << text;
  EXPECT_NE(text.find("0000:00:07.0  NVIDIA H200  GPU-005980e6-efd3-0254-f791-a39d369f7e24  90  140.4 GiB"), std::string::npos) << text;
  EXPECT_NE(text.find("GPU0: 18/18 links active, NVLink 4, 26.562 GB/s each, 478.116 GB/s total per direction -> "
                      "NVSwitch x18; errors: replay 0 recovery 0 crc 0"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("GPU1: 18/18 links active, NVLink 4 (18 link speed(s) unknown)"), std::string::npos) << text;
  EXPECT_NE(text.find("CUDA0  X"), std::string::npos) << text;
  EXPECT_NE(text.find("NCCL 2.28.3 built its own topology over 2 GPU(s)"), std::string::npos) << text;
  EXPECT_NE(text.find("1 difference(s), all explained by NCCL's version"), std::string::npos) << text;
  EXPECT_NE(text.find("expected: NCCL 2.28.3 removes NET nodes"), std::string::npos) << text;
  EXPECT_NE(text.find("eth0"), std::string::npos) << text;
}

TEST(DiscoverTopoText, SyntheticMachineMatrixUsesPciRelationsAndListsTheHca) {
  test::TempDir dir;
  test::FakeSysfs fs(dir);
  test::build_two_socket_machine(fs);
  NvmlSnapshot nvml;
  nvml.reason = "no driver";
  const SystemFacts facts = assemble_system_facts(read_host_facts(SysfsRoot(dir.path())), nvml, CudaSnapshot{}, Environment::from_map({}));
  const model::System system = system_model(facts);
  const std::string matrix = render_smi_matrix(system);
  EXPECT_NE(matrix.find("GPU0\t X \tPIX\tSYS\tPIX\t0-15\t0\t\tN/A\n"), std::string::npos) << matrix;
  EXPECT_NE(matrix.find("GPU2\tSYS\tSYS\t X \tSYS\t16-31\t1\t\tN/A\n"), std::string::npos) << matrix;
  EXPECT_NE(matrix.find("NIC0\tPIX\tPIX\tSYS\t X \t\t\t\t\n"), std::string::npos) << matrix;
  EXPECT_NE(matrix.find("NIC Legend:\n\n  NIC0: mlx5_0\n"), std::string::npos) << matrix;
  const std::string text = render_sysfs_only_text(system);
  EXPECT_NE(text.find("NVIDIA driver: unavailable: no driver"), std::string::npos) << text;
  EXPECT_NE(text.find("0000:04:00.0  0x030200  0x10de  0x2335  0     0-15   32.0 GT/s PCIe x8 / 32.0 GT/s PCIe x16"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("mlx5_0     infiniband 0000:05:00.0 (pci) NUMA 0 port 1 ACTIVE 400 Gb/s InfiniBand"), std::string::npos)
      << text;
}

TEST(DiscoverTopoText, ASavedTopoRunPrintsWhatTheLiveCommandPrinted) {
  test::H200x2Snapshot snapshot;
  ASSERT_TRUE(snapshot.ok()) << snapshot.error();
  model::Run live = topo_run(h200x2(snapshot.root(), {1}, Environment::from_map({{"CUDA_VISIBLE_DEVICES", "1"}})));
  live.record_error("model", "NCCL 2.28.9 would refuse this machine's topology: no GPU");
  const model::Run saved = model::parse_run_text(model::run_text(live), "run.json");
  EXPECT_NE(render_topo_live_text(live).find("\n  unavailable: NCCL 2.28.9 would refuse this machine's topology: no GPU\n"),
            std::string::npos);
  EXPECT_EQ(render_run_text(saved), render_topo_text(live));
  EXPECT_EQ(render_topo_text(live), render_topo_live_text(live));
  EXPECT_NE(render_run_text(saved).find("NVML GPU 0 (0000:00:06.0"), std::string::npos);

  test::TempDir dir;
  test::FakeSysfs fs(dir);
  test::build_two_socket_machine(fs);
  NvmlSnapshot nvml;
  nvml.reason = "no driver";
  const model::Run sysfs_only =
      topo_run(assemble_system_facts(read_host_facts(SysfsRoot(dir.path())), nvml, CudaSnapshot{}, Environment::from_map({})));
  const model::Run saved_sysfs_only = model::parse_run_text(model::run_text(sysfs_only), "run.json");
  EXPECT_EQ(render_run_text(saved_sysfs_only), render_sysfs_only_text(sysfs_only.system));
}

TEST(DiscoverTopoText, PciRelationsCountSwitches) {
  test::TempDir dir;
  test::FakeSysfs fs(dir);
  test::build_two_socket_machine(fs);
  // A nested switch under 0000:02:02.0 with a GPU behind it: two switches from GPU 0000:03:00.0.
  test::FakePci bridge;
  test::FakePci gpu;
  gpu.class_id = "0x030200";
  const std::string nested = "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:03.0";
  fs.pci(nested, bridge);
  fs.pci(nested + "/0000:06:00.0", bridge);
  fs.pci(nested + "/0000:06:00.0/0000:07:00.0", bridge);
  fs.pci(nested + "/0000:06:00.0/0000:07:00.0/0000:08:00.0", gpu);
  test::FakePci other_root;
  fs.pci("/sys/devices/pci0000:40/0000:40:01.0", other_root);
  fs.pci("/sys/devices/pci0000:40/0000:40:01.0/0000:41:00.0", gpu);
  const PciTree tree = read_pci_tree(SysfsRoot(dir.path()));
  const auto relation = [&](const char* a, const char* b) { return tree.relation(*tree.find(a), *tree.find(b)); };
  EXPECT_EQ(relation("0000:03:00.0", "0000:04:00.0"), "PIX");
  EXPECT_EQ(relation("0000:03:00.0", "0000:08:00.0"), "PXB");
  EXPECT_EQ(relation("0000:03:00.0", "0000:83:00.0"), "SYS");
  EXPECT_EQ(relation("0000:03:00.0", "0000:41:00.0"), "NODE");
  EXPECT_EQ(relation("0000:03:00.0", "0000:01:00.0"), "PHB");  // the switch itself hangs from the root port
}

}  // namespace
}  // namespace linkscope::report
