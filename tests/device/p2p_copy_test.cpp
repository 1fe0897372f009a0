// CE and SM copies move exactly the requested bytes: every kernel variant, odd sizes, local and peer.
#include <vector>

#include "core/error.hpp"
#include "device_test_support.hpp"
#include "measure/copy_session.hpp"
#include "measure/copy_sm_kernel.hpp"
#include "measure/p2p_engine.hpp"
#include "measure/verify_pattern.hpp"
#include "platform/cuda_check.hpp"
#include "platform/peer_access.hpp"

namespace linkscope {
namespace {

unsigned long long mismatches(int device, const void* buffer, std::uint64_t bytes, std::uint32_t seed) {
  platform::ScopedDevice scope(device);
  platform::DeviceBuffer counter(device, sizeof(unsigned long long));
  LINKSCOPE_CUDA_CHECK(cudaMemset(counter.get(), 0, sizeof(unsigned long long)));
  measure::launch_count_mismatches(buffer, bytes, seed, counter.as<unsigned long long>(), nullptr);
  unsigned long long host = 0;
  LINKSCOPE_CUDA_CHECK(cudaMemcpy(&host, counter.get(), sizeof host, cudaMemcpyDeviceToHost));
  return host;
}

// Copies with `kernel` (on its device, `repeats` times in one launch) from a pattern on `src_device` to poison on
// `dst_device`; checks the copied range and that the 16 bytes after it are still poison (no overrun).
void expect_exact_copy(const measure::SmCopyKernel& kernel, int src_device, int dst_device, std::uint64_t bytes,
                       std::uint32_t repeats = 1) {
  const std::uint64_t allocation = (bytes + 16 + 15) / 16 * 16;
  platform::DeviceBuffer src(src_device, allocation), dst(dst_device, allocation);
  {
    platform::ScopedDevice scope(src_device);
    measure::launch_fill_pattern(src.get(), allocation, 5, nullptr);
    LINKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  }
  {
    platform::ScopedDevice scope(dst_device);
    measure::launch_poison(dst.get(), allocation, 5, nullptr);
    LINKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  }
  platform::Stream stream(kernel.device());
  kernel.launch(src.get(), dst.get(), bytes, stream.get(), repeats);
  stream.synchronize();
  EXPECT_EQ(mismatches(dst_device, dst.get(), bytes, 5), 0u)
      << kernel.label() << ", " << bytes << " bytes, " << repeats << " repeats";
  std::vector<unsigned char> after(16);
  LINKSCOPE_CUDA_CHECK(cudaMemcpy(after.data(), static_cast<char*>(dst.get()) + bytes, 16, cudaMemcpyDeviceToHost));
  for (std::uint64_t b = 0; b < 16; ++b) {
    const std::uint64_t at = bytes + b;
    const auto expected = static_cast<unsigned char>(~measure::pattern_word(5, at / 4) >> (8 * (at % 4)));
    EXPECT_EQ(after[b], expected) << kernel.label() << " wrote past " << bytes << " bytes";
  }
}

std::vector<plan::SmKernelShape> every_variant() {
  std::vector<plan::SmKernelShape> shapes;
  for (const auto& variant : plan::sm_kernel_variants()) {
    for (int unroll : {1, 8, 16}) {
      plan::SmKernelShape shape;
      shape.variant = variant;
      shape.unroll = unroll;
      shape.threads = unroll == 16 ? 256 : 512;
      shapes.push_back(shape);
      if (variant == "bulk") break;  // unroll does not apply
    }
  }
  plan::SmKernelShape small_bulk;
  small_bulk.variant = "bulk";
  small_bulk.bulk_chunk_bytes = 1024;
  small_bulk.bulk_stages = 2;
  shapes.push_back(small_bulk);
  return shapes;
}

const std::vector<std::uint64_t> kOddSizes = {1, 15, 16, 17, 4096 + 3, (1 << 20) + 5, (64ull << 20) + 48};

TEST(P2pCopy, EverySmKernelVariantCopiesExactlyLocally) {
  LINKSCOPE_REQUIRE_GPUS(1);
  for (const auto& shape : every_variant()) {
    const measure::SmCopyKernel kernel(0, shape);
    for (std::uint64_t bytes : kOddSizes) expect_exact_copy(kernel, 0, 0, bytes);
  }
}

TEST(P2pCopy, EverySmKernelVariantRepeatedInOneLaunchCopiesExactly) {
  LINKSCOPE_REQUIRE_GPUS(1);
  for (const auto& shape : every_variant()) {
    const measure::SmCopyKernel kernel(0, shape);
    for (std::uint64_t bytes : kOddSizes) expect_exact_copy(kernel, 0, 0, bytes, 3);
  }
}

TEST(P2pCopy, SmReadAndWriteAcrossTwoGpus) {
  LINKSCOPE_REQUIRE_GPUS(2);
  if (!platform::query_peer_access(0, 1).possible || !platform::query_peer_access(1, 0).possible) {
    GTEST_SKIP() << "GPUs 0 and 1 have no peer access";
  }
  platform::enable_peer_access(0, 1);
  platform::enable_peer_access(1, 0);
  for (const auto& shape : every_variant()) {
    const measure::SmCopyKernel on_destination(1, shape), on_source(0, shape);
    for (std::uint64_t bytes : std::vector<std::uint64_t>{17, (1ull << 20) + 5, 64ull << 20}) {
      expect_exact_copy(on_destination, 0, 1, bytes);     // read: GPU 1 pulls from GPU 0
      expect_exact_copy(on_source, 0, 1, bytes);          // write: GPU 0 pushes to GPU 1
      expect_exact_copy(on_destination, 0, 1, bytes, 4);  // the same, repeated inside one launch
      expect_exact_copy(on_source, 0, 1, bytes, 4);
    }
  }
}

TEST(P2pCopy, ImpossibleShapesAreUsageErrors) {
  LINKSCOPE_REQUIRE_GPUS(1);
  plan::SmKernelShape huge_bulk;
  huge_bulk.variant = "bulk";
  huge_bulk.bulk_chunk_bytes = 65536;
  huge_bulk.bulk_stages = 8;  // 512 KiB of shared memory per CTA
  cudaDeviceProp prop{};
  LINKSCOPE_CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
  if (prop.major < 9) GTEST_SKIP() << "bulk falls back to vec below sm_90";
  EXPECT_THROW(measure::SmCopyKernel(0, huge_bulk), UsageError);
}

// The whole engine on the first GPU(s): CE and SM curves verified, every point measured.
TEST(P2pCopy, EngineMeasuresVerifiedCurves) {
  LINKSCOPE_REQUIRE_GPUS(1);
  const char* reason = nullptr;
  const int count = platform::cuda_device_count_or_zero(&reason);
  plan::P2pRequest request;
  request.sizes = {4096, 4 << 20};
  request.pairs = count >= 2 ? plan::parse_pairs("0>1,1>0") : plan::parse_pairs("0>0");
  request.measure_latency = false;
  request.host_bytes = 4 << 20;
  request.sampling.max_time_s = 0.2;
  const auto results = measure::run_p2p(request, {});
  ASSERT_EQ(results.points.size(), request.sizes.size() * request.pairs.size() * 2);
  for (const auto& p : results.points) {
    if (p.status == model::PointStatus::kNa) continue;  // a pair without peer access
    EXPECT_EQ(p.status, model::PointStatus::kOk) << p.method << " " << p.src << ">" << p.dst << ": " << p.reason;
    EXPECT_EQ(p.wrong, 0u);
    ASSERT_TRUE(p.bandwidth_gbps.has_value());
    EXPECT_GT(p.bandwidth_gbps->median, 0.0);
    EXPECT_GE(p.samples, 1u);
    EXPECT_GE(p.ops_per_sample, 1);
    EXPECT_LE(p.ops_per_sample, plan::kMaxOpsPerSample);
  }
  ASSERT_FALSE(results.host.empty());
  for (const auto& h : results.host) {
    EXPECT_EQ(h.status, model::PointStatus::kOk) << h.reason;
    EXPECT_EQ(h.wrong, 0u);
  }
}

// A sample whose copies repeat inside one launch really does all of them: 16 copies take at least 8 times as
// long as one, and a copy costs about what it costs with one launch each (a launch gap less, not a copy less).
TEST(P2pCopy, RepetitionInOneLaunchDoesEveryCopy) {
  LINKSCOPE_REQUIRE_GPUS(1);
  const std::uint64_t bytes = 256ull << 20;
  platform::DeviceBuffer src(0, bytes), dst(0, bytes);
  {
    platform::ScopedDevice scope(0);
    measure::launch_fill_pattern(src.get(), bytes, 21, nullptr);
    LINKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  }
  measure::LaunchGate gate;
  measure::preload_sample_kernels(0, gate);
  for (const char* variant : {"vec_nc", "bulk"}) {
    plan::SmKernelShape shape;
    shape.variant = variant;
    const measure::SmCopyKernel kernel(0, shape);
    measure::Transfer t;
    t.kind = measure::TransferKind::kSmKernel;
    t.src = src.get();
    t.dst = dst.get();
    t.src_device = t.dst_device = 0;
    t.bytes = bytes;
    t.kernel = &kernel;
    t.seed = 21;
    t.repeat_in_kernel = true;
    measure::CopySession in_kernel({t}, gate, true);
    t.repeat_in_kernel = false;
    measure::CopySession per_launch({t}, gate, true);
    in_kernel.run(2);  // warm-up
    const auto one = in_kernel.run(1);
    const auto sixteen = in_kernel.run(16);
    const auto launched = per_launch.run(16);
    EXPECT_EQ(one.wrong[0] + sixteen.wrong[0] + launched.wrong[0], 0u) << variant;
    EXPECT_GE(sixteen.seconds[0], 8 * one.seconds[0]) << variant << ": the repeats did not all run";
    EXPECT_GE(sixteen.seconds[0], 0.8 * launched.seconds[0]) << variant << ": far faster than one launch per copy";
    EXPECT_LE(sixteen.seconds[0], 1.05 * launched.seconds[0]) << variant << ": slower than one launch per copy";
  }
}

// Copies from 64 MiB up repeat inside one launch (plan::kRepeatInKernelMinBytes); smaller ones launch each copy.
TEST(P2pCopy, EngineRecordsHowTheCopiesWereLaunched) {
  LINKSCOPE_REQUIRE_GPUS(1);
  plan::P2pRequest request;
  request.sizes = {1 << 20, plan::kRepeatInKernelMinBytes};
  request.pairs = plan::parse_pairs("0>0");
  request.methods = {plan::CopyMethod::kSm};
  request.measure_latency = request.measure_host = false;
  request.sampling.max_time_s = 0.2;
  const auto results = measure::run_p2p(request, {});
  ASSERT_EQ(results.points.size(), 2u);
  EXPECT_EQ(results.points[0].sm_repeat, "launch");
  EXPECT_EQ(results.points[1].sm_repeat, "kernel");
  for (const auto& p : results.points) {
    EXPECT_EQ(p.status, model::PointStatus::kOk) << p.reason;
    EXPECT_EQ(p.wrong, 0u);
  }
}

TEST(P2pCopy, SizesLargerThanFreeMemoryAreRejectedBeforeAllocating) {
  LINKSCOPE_REQUIRE_GPUS(1);
  plan::P2pRequest request;
  request.sizes = {1ull << 50};  // 1 PiB
  request.pairs = plan::parse_pairs("0>0");
  try {
    measure::run_p2p(request, {});
    ADD_FAILURE() << "1 PiB was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("is free"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace linkscope
