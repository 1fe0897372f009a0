// Verification: the pattern, poison and mismatch count that every p2p sample relies on.
#include <vector>

#include "device_test_support.hpp"
#include "measure/copy_session.hpp"
#include "measure/copy_sm_kernel.hpp"
#include "measure/verify_pattern.hpp"
#include "platform/cuda_check.hpp"

namespace linkscope {
namespace {

using measure::derived_seed;
using measure::pattern_word;

unsigned long long count_mismatches(const void* buffer, std::uint64_t bytes, std::uint32_t seed) {
  platform::DeviceBuffer counter(0, sizeof(unsigned long long));
  LINKSCOPE_CUDA_CHECK(cudaMemset(counter.get(), 0, sizeof(unsigned long long)));
  measure::launch_count_mismatches(buffer, bytes, seed, counter.as<unsigned long long>(), nullptr);
  unsigned long long host = 0;
  LINKSCOPE_CUDA_CHECK(cudaMemcpy(&host, counter.get(), sizeof host, cudaMemcpyDeviceToHost));
  return host;
}

TEST(P2pVerify, PatternIsDistinctPerSeedAndIndex) {
  // Host-side property, no GPU needed: neighbours and seeds differ, so shifted or foreign data is caught.
  int equal_neighbours = 0, equal_seeds = 0;
  for (std::uint64_t i = 0; i < 100000; ++i) {
    equal_neighbours += pattern_word(7, i) == pattern_word(7, i + 1);
    equal_seeds += pattern_word(derived_seed(7, 0), i) == pattern_word(derived_seed(7, 1), i);
  }
  EXPECT_LE(equal_neighbours, 2);
  EXPECT_LE(equal_seeds, 2);
  EXPECT_NE(derived_seed(7, 0), derived_seed(7, 1));
}

TEST(P2pVerify, CountsEveryCorruptedWordAndPartialTail) {
  LINKSCOPE_REQUIRE_GPUS(1);
  platform::ScopedDevice scope(0);
  const std::uint64_t bytes = (1 << 20) + 7;  // a partial vector and a partial word at the end
  platform::DeviceBuffer buffer(0, (bytes + 15) / 16 * 16);
  measure::launch_fill_pattern(buffer.get(), bytes, 42, nullptr);
  EXPECT_EQ(count_mismatches(buffer.get(), bytes, 42), 0u);
  EXPECT_EQ(count_mismatches(buffer.get(), bytes, 43), (bytes + 3) / 4) << "another seed must mismatch everywhere";
  // Corrupt 3 whole words in the middle and one byte of the trailing partial word.
  LINKSCOPE_CUDA_CHECK(cudaMemset(static_cast<char*>(buffer.get()) + 4096, 0x5A, 12));
  const unsigned char flipped = static_cast<unsigned char>(~(pattern_word(42, bytes / 4) >> 16));
  LINKSCOPE_CUDA_CHECK(cudaMemcpy(static_cast<char*>(buffer.get()) + bytes - 1, &flipped, 1, cudaMemcpyHostToDevice));
  EXPECT_EQ(count_mismatches(buffer.get(), bytes, 42), 4u);
  // Bytes past the end are not part of the copy and are not counted.
  LINKSCOPE_CUDA_CHECK(cudaMemset(static_cast<char*>(buffer.get()) + bytes, 0, 1));
  EXPECT_EQ(count_mismatches(buffer.get(), bytes, 42), 4u);
}

TEST(P2pVerify, PoisonMakesEveryWordWrong) {
  LINKSCOPE_REQUIRE_GPUS(1);
  platform::ScopedDevice scope(0);
  const std::uint64_t bytes = 4096;
  platform::DeviceBuffer buffer(0, bytes);
  measure::launch_poison(buffer.get(), bytes, 9, nullptr);
  EXPECT_EQ(count_mismatches(buffer.get(), bytes, 9), bytes / 4);
}

// A sample of a copy whose source holds other data than the pattern the session expects is reported wrong:
// the path a corrupted or misdirected copy takes through the engine.
TEST(P2pVerify, SessionCatchesACorruptedCopy) {
  LINKSCOPE_REQUIRE_GPUS(1);
  const std::uint64_t bytes = 1 << 20;
  platform::DeviceBuffer src(0, bytes), dst(0, bytes);
  {
    platform::ScopedDevice scope(0);
    measure::launch_fill_pattern(src.get(), bytes, 11, nullptr);
    LINKSCOPE_CUDA_CHECK(cudaMemset(static_cast<char*>(src.get()) + 1000, 0xFF, 8));  // 2 aligned words
    LINKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  }
  measure::LaunchGate gate;
  measure::Transfer t;
  t.kind = measure::TransferKind::kCopyEngine;
  t.initiator = 0;
  t.src = src.get();
  t.dst = dst.get();
  t.src_device = t.dst_device = 0;
  t.bytes = bytes;
  t.seed = 11;
  t.check_device = 0;
  measure::CopySession session({t}, gate, true);
  const auto times = session.run(2);
  ASSERT_EQ(times.wrong.size(), 1u);
  EXPECT_EQ(times.wrong[0], 2u);
  EXPECT_GT(times.seconds[0], 0.0);
  EXPECT_GE(times.span_seconds, times.seconds[0]);

  measure::CopySession unverified({t}, gate, false);
  EXPECT_EQ(unverified.run(1).wrong[0], 0u) << "--no-verify counts nothing";
}

// The same with SM copies repeated inside one launch: every repeat copies the corrupted words again, and the
// sample still counts each wrong word once; a clean source then verifies clean (the poison was overwritten).
TEST(P2pVerify, SessionCatchesACorruptedCopyRepeatedInOneLaunch) {
  LINKSCOPE_REQUIRE_GPUS(1);
  const std::uint64_t bytes = (4 << 20) + 12;  // whole tiles, a partial tile and a partial vector
  platform::DeviceBuffer src(0, bytes + 4), dst(0, bytes + 4);
  {
    platform::ScopedDevice scope(0);
    measure::launch_fill_pattern(src.get(), bytes, 13, nullptr);
    LINKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  }
  measure::LaunchGate gate;
  measure::preload_sample_kernels(0, gate);
  for (const char* variant : {"vec", "vec_nc", "bulk"}) {
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
    t.seed = 13;
    t.repeat_in_kernel = true;
    measure::CopySession session({t}, gate, true);
    EXPECT_EQ(session.run(5).wrong[0], 0u) << variant;
    // Three aligned words in the middle and the last, partial word (copied by the tail path).
    LINKSCOPE_CUDA_CHECK(cudaMemset(static_cast<char*>(src.get()) + 8192, 0xA5, 12));
    const auto flipped = static_cast<unsigned char>(~(pattern_word(13, (bytes - 1) / 4) >> (8 * ((bytes - 1) % 4))));
    LINKSCOPE_CUDA_CHECK(cudaMemcpy(static_cast<char*>(src.get()) + bytes - 1, &flipped, 1, cudaMemcpyHostToDevice));
    const auto times = session.run(5);
    EXPECT_EQ(times.wrong[0], 4u) << variant;
    {
      platform::ScopedDevice scope(0);
      measure::launch_fill_pattern(src.get(), bytes, 13, nullptr);
      LINKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
    }
  }
}

}  // namespace
}  // namespace linkscope
