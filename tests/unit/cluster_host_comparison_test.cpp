#include <gtest/gtest.h>

#include <algorithm>

#include "cluster/host_comparison.hpp"
#include "unit/cluster_test_hosts.hpp"

namespace linkscope::cluster {
namespace {

// The real h200x2 facts (tests/fixtures/runs/h200x2-healthy.json) with an InfiniBand HCA added, as one host of a
// cluster.
HostReport host(const std::string& name, int rank) {
  model::System system = test::h200x2_system();
  system.nics.push_back(test::infiniband_hca("mlx5_0", 400));
  return test::host_with(name, rank, std::move(system));
}

std::string trait(const std::vector<HostTrait>& traits, const std::string& key) {
  for (const auto& t : traits) {
    if (t.key == key) return t.value;
  }
  return "(missing)";
}

TEST(ClusterHostComparison, TraitsOfARealHost) {
  const auto traits = host_traits(host("a", 0));
  EXPECT_EQ(trait(traits, "driver"), "580.159.04");
  EXPECT_EQ(trait(traits, "cuda_driver"), "13.0");
  EXPECT_EQ(trait(traits, "cuda_runtime"), "13.0");
  EXPECT_EQ(trait(traits, "nccl"), "2.28.9");
  EXPECT_EQ(trait(traits, "gpu_count"), "2");
  EXPECT_EQ(trait(traits, "gpu_models"), "2 x NVIDIA H200");
  EXPECT_EQ(trait(traits, "nvlinks"), "18 NVLinks active per GPU");
  EXPECT_EQ(trait(traits, "pcie_width"), "x16 per GPU");
  EXPECT_EQ(trait(traits, "nic_count"), "1 RDMA device(s), 1 network interface(s)");
  EXPECT_EQ(trait(traits, "nic_links"), "eth0 ? 10 Gb/s, mlx5_0:1 ACTIVE 400 Gb/s");
}

TEST(ClusterHostComparison, IdenticalHostsFormOneGroupWithoutDifferences) {
  const auto comparison = compare_hosts({host("a", 0), host("b", 1), host("c", 2)});
  ASSERT_EQ(comparison.groups.size(), 1u);
  EXPECT_EQ(comparison.groups[0].hosts, (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(comparison.differences.empty());
  EXPECT_TRUE(host_difference_lines(comparison, 1).empty());
}

TEST(ClusterHostComparison, EveryDifferingFactNamesItsHost) {
  auto old_driver = host("b", 1);
  test::edit_facts(old_driver).driver.version = std::string("575.57.08");
  auto one_gpu = host("c", 2);
  model::System& one = test::edit_facts(one_gpu);
  one.gpus.erase(one.gpus.begin() + 1);
  one.visibility.nvml_gpu_count = 1;
  one.cuda.device_count = 1;
  auto narrow = host("d", 3);
  model::System& narrowed = test::edit_facts(narrow);
  narrowed.gpus[1].pcie.current_width = 8;
  narrowed.nics[1].ports[0].state = "DOWN";
  auto no_nccl = host("e", 4);
  no_nccl.nccl_version.reset();
  no_nccl.nccl_version_reason = "NCCL library not found";
  const auto comparison = compare_hosts({host("a", 0), old_driver, one_gpu, narrow, no_nccl});
  EXPECT_EQ(comparison.groups.size(), 5u);

  const auto lines_of = [&](int index) { return host_difference_lines(comparison, index); };
  EXPECT_TRUE(lines_of(0).empty());
  EXPECT_EQ(lines_of(1), (std::vector<std::string>{"NVIDIA driver 575.57.08 (4 other host(s): 580.159.04)"}));
  const auto c = lines_of(2);
  EXPECT_NE(std::find(c.begin(), c.end(), "GPU count 1 (4 other host(s): 2)"), c.end());
  EXPECT_NE(std::find(c.begin(), c.end(), "GPUs visible to CUDA 1 (4 other host(s): 2)"), c.end());
  EXPECT_NE(std::find(c.begin(), c.end(), "GPU models 1 x NVIDIA H200 (4 other host(s): 2 x NVIDIA H200)"), c.end());
  const auto d = lines_of(3);
  EXPECT_NE(std::find(d.begin(), d.end(), "PCIe width GPU0 x16, GPU1 x8 (max x16) (4 other host(s): x16 per GPU)"), d.end());
  EXPECT_NE(std::find(d.begin(), d.end(),
                      "NIC link states eth0 ? 10 Gb/s, mlx5_0:1 DOWN 400 Gb/s (4 other host(s): eth0 ? 10 Gb/s, mlx5_0:1 "
                      "ACTIVE 400 Gb/s)"),
            d.end());
  EXPECT_EQ(lines_of(4), (std::vector<std::string>{"NCCL library unknown (NCCL library not found) (4 other host(s): 2.28.9)"}));

  model::System system;
  add_hosts_to_system(system, comparison, /*with_facts=*/false);
  ASSERT_EQ(system.hosts.size(), 5u);
  EXPECT_FALSE(system.hosts[0].system);
  EXPECT_EQ(system.hosts[1].traits.at("driver"), "575.57.08");
  EXPECT_EQ(system.hosts[1].group, 1);
  EXPECT_EQ(system.hosts[1].differences, lines_of(1));
  ASSERT_EQ(system.host_groups.size(), 5u);
  EXPECT_EQ(system.host_groups[0], (std::vector<std::string>{"a"}));
  const model::HostDifference& driver = system.host_differences[0];
  EXPECT_EQ(driver.trait, "driver");
  EXPECT_EQ(driver.common_value, "580.159.04");
  EXPECT_EQ(driver.common_hosts, (std::vector<std::string>{"a", "c", "d", "e"}));
  ASSERT_EQ(driver.others.size(), 1u);
  EXPECT_EQ(driver.others[0].host, "b");
  EXPECT_EQ(driver.others[0].value, "575.57.08");
}

TEST(ClusterHostComparison, MajorityWinsAndGroupsAreLargestFirst) {
  auto odd = host("a", 0);
  test::edit_facts(odd).driver.version = std::string("575.57.08");
  const auto comparison = compare_hosts({odd, host("b", 1), host("c", 2)});
  ASSERT_EQ(comparison.groups.size(), 2u);
  EXPECT_EQ(comparison.groups[0].hosts, (std::vector<int>{1, 2}));
  EXPECT_EQ(comparison.group_of_host, (std::vector<int>{1, 0, 0}));
  ASSERT_EQ(comparison.differences.size(), 1u);
  EXPECT_EQ(comparison.differences[0].common_value, "580.159.04");
  EXPECT_EQ(comparison.differences[0].others, (std::vector<std::pair<int, std::string>>{{0, "575.57.08"}}));
}

TEST(ClusterHostComparison, AHostWithoutFactsDiffersWithItsReason) {
  auto failed = host("b", 1);
  failed.system = nullptr;
  failed.error = "discovery failed: out of memory";
  auto no_driver = host("c", 2);
  model::Driver& driver = test::edit_facts(no_driver).driver;
  driver = model::Driver{};
  driver.reason = "dlopen(libnvidia-ml.so.1) failed";
  const auto comparison = compare_hosts({host("a", 0), failed, no_driver});
  const auto traits = comparison.traits[1];
  EXPECT_EQ(trait(traits, "driver"), "unknown (discovery failed: out of memory)");
  EXPECT_EQ(trait(traits, "nccl"), "2.28.9");  // known without the facts
  EXPECT_EQ(trait(comparison.traits[2], "driver"), "unavailable (dlopen(libnvidia-ml.so.1) failed)");
}

}  // namespace
}  // namespace linkscope::cluster
