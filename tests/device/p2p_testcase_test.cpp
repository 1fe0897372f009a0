// The kernels nvbandwidth's testcases needed (split-warp copy, pointer chase in pinned host memory) and
// `p2p --testcase` end to end on the GPUs present.
#include <cmath>
#include <vector>

#include "device_test_support.hpp"
#include "measure/latency_probe.hpp"
#include "measure/launch_gate.hpp"
#include "measure/p2p_engine.hpp"
#include "measure/split_warp_copy.hpp"
#include "measure/verify_pattern.hpp"
#include "plan/nvbandwidth_testcases.hpp"
#include "platform/cuda_check.hpp"

namespace linkscope {
namespace {

std::vector<std::uint32_t> words_of(const void* device_pointer, std::uint64_t bytes) {
  std::vector<std::uint32_t> words(bytes / 4);
  LINKSCOPE_CUDA_CHECK(cudaMemcpy(words.data(), device_pointer, bytes, cudaMemcpyDefault));
  return words;
}

// Odd 512-byte segments hold a's data in both buffers afterwards, even ones b's.
void expect_segments_swapped(const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b,
                             std::uint32_t seed_a, std::uint32_t seed_b) {
  std::size_t wrong = 0;
  for (std::size_t w = 0; w < a.size(); ++w) {
    const bool odd = (w * 4 / measure::kSplitSegmentBytes) % 2 == 1;
    const std::uint32_t want = measure::pattern_word(odd ? seed_a : seed_b, w);
    wrong += (a[w] != want) + (b[w] != want);
  }
  EXPECT_EQ(wrong, 0u);
}

TEST(P2pTestcase, SplitWarpCopyMovesAlternateSegmentsEachWay) {
  LINKSCOPE_REQUIRE_GPUS(1);
  const std::uint64_t bytes = (3 << 20) + 4 * 512 + 256;  // a partial last segment too
  platform::DeviceBuffer a(0, bytes), b(0, bytes);
  platform::ScopedDevice scope(0);
  measure::launch_fill_pattern(a.get(), bytes, 11, nullptr);
  measure::launch_fill_pattern(b.get(), bytes, 22, nullptr);
  measure::launch_split_warp_copy(a.get(), b.get(), bytes, 1, nullptr);
  LINKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  expect_segments_swapped(words_of(a.get(), bytes), words_of(b.get(), bytes), 11, 22);
  // Repeating it moves the same bytes the same way: a second and third pass change nothing.
  measure::launch_split_warp_copy(a.get(), b.get(), bytes, 2, nullptr);
  LINKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  expect_segments_swapped(words_of(a.get(), bytes), words_of(b.get(), bytes), 11, 22);
  EXPECT_EQ(measure::split_bytes_per_direction(bytes), bytes / 2);
}

std::uint64_t mismatches(const void* a, const void* b, std::uint64_t bytes, std::uint32_t seed) {
  platform::DeviceBuffer counter(0, sizeof(unsigned long long));
  auto* word = counter.as<unsigned long long>();
  LINKSCOPE_CUDA_CHECK(cudaMemset(word, 0, sizeof *word));
  measure::launch_count_mismatches(a, bytes, seed, word, nullptr);
  measure::launch_count_mismatches(b, bytes, seed, word, nullptr);
  unsigned long long wrong = 0;
  LINKSCOPE_CUDA_CHECK(cudaMemcpy(&wrong, word, sizeof wrong, cudaMemcpyDeviceToHost));
  return wrong;
}

TEST(P2pTestcase, PreparedSplitBuffersCatchAPassThatDidNotHappen) {
  LINKSCOPE_REQUIRE_GPUS(1);
  const std::uint64_t bytes = 1 << 20;
  platform::PinnedHostBuffer host(bytes);  // host <-> GPU, as the bidirectional SM host testcases
  platform::DeviceBuffer device(0, bytes);
  platform::ScopedDevice scope(0);
  void* a = host.device_view(0);
  measure::prepare_split_warp_buffers(a, device.get(), bytes, 5, nullptr);
  LINKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(mismatches(a, device.get(), bytes, 5), bytes / 4) << "half of each buffer waits to be overwritten";
  measure::launch_split_warp_copy(a, device.get(), bytes, 3, nullptr);
  LINKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(mismatches(a, device.get(), bytes, 5), 0u);
}

TEST(P2pTestcase, PointerChaseInPinnedHostMemory) {
  LINKSCOPE_REQUIRE_GPUS(1);
  const auto& spec = plan::kNvbandwidthChase;
  const auto chain = measure::make_host_chase_chain(0, spec.order, spec.footprint_bytes, 3);
  const auto base = reinterpret_cast<std::uint64_t>(chain.device_view(0));
  const auto* words = chain.as<std::uint64_t>();
  EXPECT_EQ(words[0], base + plan::kChaseNodeBytes) << "stride order: line after line";
  EXPECT_EQ(words[(spec.footprint_bytes - plan::kChaseNodeBytes) / 8], base) << "the last line closes the cycle";
  measure::LaunchGate gate;
  SamplingPolicy quick;
  quick.max_time_s = 0.5;
  const Summary host_ns = measure::sample_pointer_chase(0, chain.device_view(0), spec, gate, quick);
  const auto local = measure::make_chase_chain(0, spec.order, spec.footprint_bytes, 3);
  const Summary local_ns = measure::sample_pointer_chase(0, local.get(), spec, gate, quick);
  ASSERT_GT(host_ns.count, 0u);
  EXPECT_TRUE(std::isfinite(host_ns.mean));
  EXPECT_GT(host_ns.median, local_ns.median) << "a load that crosses to host memory takes longer than one from L2";
}

TEST(P2pTestcase, EngineRunsHostAndLocalTestcasesAndSkipsPairsOnOneGpu) {
  LINKSCOPE_REQUIRE_GPUS(1);
  plan::P2pRequest request;
  request.testcases = {"host_to_device_memcpy_ce", "device_to_host_bidirectional_memcpy_sm", "host_to_all_memcpy_sm",
                       "host_device_latency_sm", "device_local_copy", "device_to_device_memcpy_read_ce"};
  request.testcase_gpus = {0};
  request.testcase_bytes = 4 << 20;
  request.sampling.max_time_s = 0.2;
  const auto results = measure::run_p2p(request, nullptr);
  ASSERT_EQ(results.testcases.size(), request.testcases.size());
  for (std::size_t i = 0; i + 1 < results.testcases.size(); ++i) {
    const auto& t = results.testcases[i];
    EXPECT_EQ(t.status, model::PointStatus::kOk) << t.name << ": " << t.reason;
    ASSERT_EQ(t.matrices.size(), 1u) << t.name;
    ASSERT_TRUE(t.matrices[0].at(0, 0).has_value()) << t.name;
    EXPECT_GT(*t.matrices[0].at(0, 0), 0.0) << t.name;
    ASSERT_EQ(t.cells.size(), 1u) << t.name;
    EXPECT_EQ(t.cells[0].wrong, 0u) << t.name;
    EXPECT_GT(t.cells[0].samples, 0u) << t.name;
  }
  EXPECT_EQ(results.testcases[3].unit, "ns");
  EXPECT_EQ(results.testcases[3].bytes, plan::kNvbandwidthLatencyBytes);
  const auto& pair = results.testcases.back();
  EXPECT_EQ(pair.status, model::PointStatus::kNa);
  EXPECT_EQ(pair.reason, "needs 2 GPUs (1 visible)");
}

}  // namespace
}  // namespace linkscope
