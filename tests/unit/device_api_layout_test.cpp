// plan/device_api_layout: the -D all_reduce kernels' division of the elements, checked exhaustively on the host
// (the kernels call the same constexpr functions): the ranks' slices cover every element exactly once, and each
// slice's vectors start on 16-byte boundaries and stay inside the slice, for every element size and misalignment.
#include <gtest/gtest.h>

#include <vector>

#include "plan/device_api.hpp"
#include "plan/device_api_layout.hpp"

namespace linkscope::coll {
namespace {

TEST(DeviceApiLayout, SlicesCoverEveryElementOnce) {
  for (std::uint64_t per_vector : {1u, 2u, 4u, 8u, 16u}) {
    for (int ranks = 1; ranks <= 9; ++ranks) {
      for (std::uint64_t count = 0; count <= 300; ++count) {
        std::vector<int> covered(count, 0);
        for (int rank = 0; rank < ranks; ++rank) {
          const ElementRange r = allreduce_slice(count, ranks, rank, per_vector);
          ASSERT_LE(r.begin, r.end);
          ASSERT_LE(r.end, count);
          // Every slice but an empty one starts on a whole number of vectors from element 0.
          if (r.begin < r.end) EXPECT_EQ(r.begin % per_vector, 0u);
          for (std::uint64_t i = r.begin; i < r.end; ++i) ++covered[i];
        }
        for (std::uint64_t i = 0; i < count; ++i) {
          ASSERT_EQ(covered[i], 1) << "element " << i << " of " << count << ", " << ranks << " ranks, " << per_vector;
        }
      }
    }
  }
}

TEST(DeviceApiLayout, OneRankSumsEverything) {
  const ElementRange r = allreduce_slice(1000, 1, 0, 4);
  EXPECT_EQ(r.begin, 0u);
  EXPECT_EQ(r.end, 1000u);
  // 10 elements over 4 ranks in vectors of 4: 4, 4, 2, nothing.
  EXPECT_EQ(allreduce_slice(10, 4, 1, 4).begin, 4u);
  EXPECT_EQ(allreduce_slice(10, 4, 2, 4).end, 10u);
  EXPECT_EQ(allreduce_slice(10, 4, 3, 4).begin, allreduce_slice(10, 4, 3, 4).end);
}

TEST(DeviceApiLayout, VectorsStartAlignedAndStayInsideTheRange) {
  for (std::uint64_t element : {1u, 2u, 4u, 8u}) {
    for (std::uint64_t misalign = 0; misalign < kDeviceApiVectorBytes; misalign += element) {
      for (std::uint64_t begin = 0; begin <= 40; ++begin) {
        for (std::uint64_t end = begin; end <= begin + 70; ++end) {
          const VectorSplit s = split_for_vectors({begin, end}, misalign, element);
          ASSERT_LE(begin, s.first_vector);
          ASSERT_LE(s.first_vector, s.tail);
          ASSERT_LE(s.tail, end);
          EXPECT_EQ(s.tail - s.first_vector, s.vectors * (kDeviceApiVectorBytes / element));
          if (s.vectors > 0) {
            EXPECT_EQ((misalign + s.first_vector * element) % kDeviceApiVectorBytes, 0u);
            // The scalar head is shorter than a vector, and so is the tail.
            EXPECT_LT((s.first_vector - begin) * element, kDeviceApiVectorBytes);
          }
          EXPECT_LT((end - s.tail) * element, 2 * kDeviceApiVectorBytes);
        }
      }
    }
  }
}

TEST(DeviceApiLayout, AlignedFloatsAreAllVectors) {
  const VectorSplit s = split_for_vectors({0, 1024}, 0, 4);
  EXPECT_EQ(s.first_vector, 0u);
  EXPECT_EQ(s.vectors, 256u);
  EXPECT_EQ(s.tail, 1024u);
  // -u 1 with floats: three scalars first, then vectors, then one scalar left.
  const VectorSplit u = split_for_vectors({0, 1024}, 4, 4);
  EXPECT_EQ(u.first_vector, 3u);
  EXPECT_EQ(u.vectors, 255u);
  EXPECT_EQ(u.tail, 1023u);
}

// The -D 2 alltoall copy is bound by the bytes its few threads keep in flight (issue 26): fewer than nccl-tests'
// kernel keeps put linkscope's -D numbers below nccl-tests' for the same data movement.
TEST(DeviceApiLayout, AlltoallKeepsMoreBytesInFlightThanNcclTests) {
  const std::uint64_t per_thread = kDeviceApiAlltoallVectorsInFlight * kDeviceApiVectorBytes;
  EXPECT_GT(per_thread, kNcclTestsAlltoallBytesInFlight);
  const std::uint64_t grid = per_thread * kDefaultDeviceCtas * kDeviceApiThreadsPerCta;
  EXPECT_GE(grid, std::uint64_t{2} << 20) << "2 MiB in flight ran at 1.02x of nccl-tests, 512 KiB at 0.88x";
}

}  // namespace
}  // namespace linkscope::coll
