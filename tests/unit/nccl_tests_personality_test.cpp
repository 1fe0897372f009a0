#include <gtest/gtest.h>

#include "plan/nccl_tests_personality.hpp"

namespace linkscope::coll {
namespace {

TEST(NcclTestsPersonality, BinaryNamesMapToOps) {
  EXPECT_EQ(nccl_tests_program_op("all_reduce_perf"), "all_reduce");
  EXPECT_EQ(nccl_tests_program_op("/opt/bin/sendrecv_perf"), "sendrecv");
  EXPECT_EQ(nccl_tests_program_op("alltoall_perf_mpi"), "alltoall");
  EXPECT_EQ(nccl_tests_program_op("scatter_perf"), "scatter");
  EXPECT_FALSE(nccl_tests_program_op("linkscope").has_value());
  EXPECT_EQ(nccl_tests_program_op("hypercube_perf"), "hypercube");
  EXPECT_EQ(nccl_tests_program_op("alltoallv_perf"), "alltoallv");
  EXPECT_EQ(nccl_tests_program_op("alltoall_perf"), "alltoall");
  EXPECT_FALSE(nccl_tests_program_op("bisection_perf").has_value());
  EXPECT_FALSE(nccl_tests_program_op("all_reduce_perfx").has_value());
  EXPECT_FALSE(nccl_tests_program_op("/usr/bin/all_reduce_perf/linkscope").has_value());
}

TEST(NcclTestsPersonality, ArgumentsBecomeACollCommand) {
  const auto args = nccl_tests_personality_args({"./build/all_gather_perf", "-b", "8", "-e", "8G", "-g", "2"});
  ASSERT_TRUE(args.has_value());
  EXPECT_EQ(*args, (std::vector<std::string>{"./build/all_gather_perf", "coll", "all_gather", kAsNcclTestsFlag, "-b", "8",
                                             "-e", "8G", "-g", "2"}));
  EXPECT_FALSE(nccl_tests_personality_args({"linkscope", "coll"}).has_value());
  EXPECT_FALSE(nccl_tests_personality_args({}).has_value());
}

}  // namespace
}  // namespace linkscope::coll
