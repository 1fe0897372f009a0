// Patterns: range checks, a concurrent run, scaling; CPU binding helpers.
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "device_test_support.hpp"
#include "core/error.hpp"
#include "measure/numa_sweep.hpp"
#include "measure/pattern_engine.hpp"
#include "platform/cpu_affinity.hpp"
#include "support/temp_dir.hpp"

namespace linkscope {
namespace {

measure::PatternRequest request_for(const std::vector<plan::PatternPlan>& plans) {
  measure::PatternRequest request;
  request.plans = plans;
  request.bytes = 16 << 20;
  request.sampling.max_time_s = 0.3;
  return request;
}

plan::PatternPlan custom(const std::string& edges) {
  plan::PatternPlan p;
  p.name = "edges";
  p.runnable = true;
  p.spec = plan::parse_edges_pattern(edges);
  return p;
}

TEST(P2pPattern, OutOfRangeGpuIsRejected) {
  LINKSCOPE_REQUIRE_GPUS(1);
  const int count = platform::cuda_device_count_or_zero();
  try {
    measure::run_patterns(request_for({custom(fmt::format("0>{}", count))}), {});
    ADD_FAILURE() << "an edge to GPU " << count << " was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("out of range"), std::string::npos) << e.what();
  }
}

TEST(P2pPattern, ConcurrentEdgesGiveAggregateAndScaling) {
  LINKSCOPE_REQUIRE_GPUS(1);
  const int count = platform::cuda_device_count_or_zero();
  // Two GPUs: the bidirectional preset; one GPU: two local copies at once.
  const auto plan = count >= 2 ? plan::make_preset("bidirectional", plan::first_devices(2)) : custom("0>0,0>0");
  const auto results = measure::run_patterns(request_for({plan, plan::make_preset("ring", plan::first_devices(count))}), {});
  ASSERT_EQ(results.size(), 2u);
  const auto& r = results[0];
  if (r.status == model::PointStatus::kNa) GTEST_SKIP() << r.reason;
  ASSERT_EQ(r.status, model::PointStatus::kOk) << r.reason;
  EXPECT_EQ(r.wrong, 0u);
  ASSERT_EQ(r.edges.size(), 2u);
  ASSERT_TRUE(r.aggregate_gbps && r.scaling && r.sum_alone_gbps);
  for (const auto& e : r.edges) {
    ASSERT_TRUE(e.bandwidth_gbps && e.alone_gbps);
    // The aggregate window contains every edge's own window.
    EXPECT_GE(r.aggregate_gbps->median * 1.02, e.bandwidth_gbps->median);
  }
  EXPECT_GT(*r.scaling, 0.0);
  EXPECT_LT(*r.scaling, 2.05);
  if (count < 3) {
    EXPECT_EQ(results[1].status, model::PointStatus::kNa);
    EXPECT_NE(results[1].reason.find("needs 3 GPUs"), std::string::npos);
  }
}

void write(const std::string& path, const std::string& text) {
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  std::ofstream(path) << text;
}

TEST(P2pCpuAffinity, ReadsNumaNodesFromSysfs) {
  // No GPU needed.
  test::TempDir root;
  write(root.path() + "/devices/system/node/node0/cpulist", "0-3\n");
  write(root.path() + "/devices/system/node/node1/cpulist", "4-7\n");
  write(root.path() + "/devices/system/node/node2/cpulist", "\n");  // memory-only node
  EXPECT_EQ(platform::numa_nodes_with_cpus(root.path()), (std::vector<int>{0, 1}));
  EXPECT_EQ(platform::numa_node_cpus(1, root.path()), (std::vector<int>{4, 5, 6, 7}));
  try {
    platform::numa_node_cpus(2, root.path());
    ADD_FAILURE() << "a node without CPUs was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("nodes with CPUs: 0,1"), std::string::npos) << e.what();
  }
  test::TempDir flat;  // no node folder: one node 0 with this process's CPUs
  EXPECT_EQ(platform::numa_nodes_with_cpus(flat.path()), (std::vector<int>{0}));
  EXPECT_EQ(platform::numa_node_cpus(0, flat.path()), platform::current_thread_cpus());
}

TEST(P2pCpuAffinity, BindsAndRestores) {
  const auto before = platform::current_thread_cpus();
  ASSERT_FALSE(before.empty());
  {
    platform::ScopedCpuBinding binding({before.front()});
    EXPECT_EQ(platform::current_thread_cpus(), (std::vector<int>{before.front()}));
  }
  EXPECT_EQ(platform::current_thread_cpus(), before);
  EXPECT_THROW(platform::bind_current_thread({CPU_SETSIZE + 5}), UsageError);
}

TEST(P2pPattern, NumaSweepOnOneNodeMeasuresOnceAndSaysSo) {
  LINKSCOPE_REQUIRE_GPUS(1);
  test::TempDir flat;  // a machine without NUMA folders counts as one node
  const auto run = measure::run_pattern_set(request_for({custom("0>0")}), true, {}, flat.path());
  ASSERT_EQ(run.patterns.size(), 1u);
  ASSERT_TRUE(run.numa.has_value());
  EXPECT_FALSE(run.numa->largest_relative_difference.has_value());
  EXPECT_NE(run.numa->reason.find("one NUMA node"), std::string::npos);
  ASSERT_FALSE(run.notes.empty());
}

}  // namespace
}  // namespace linkscope
