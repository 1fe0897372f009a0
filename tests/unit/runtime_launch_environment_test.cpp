#include <gtest/gtest.h>

#include "core/error.hpp"
#include "runtime/launch_environment.hpp"

namespace linkscope::runtime {
namespace {

TEST(LaunchEnvironment, AloneWithoutLauncherVariables) {
  const auto launch = detect_launch(Environment::from_map({{"HOME", "/root"}}));
  EXPECT_FALSE(launch.parallel());
  EXPECT_EQ(launch.world_size, 1);
  EXPECT_NO_THROW(refuse_parallel_launch_without_mpi(launch, false));
}

TEST(LaunchEnvironment, OpenMpi) {
  const auto launch =
      detect_launch(Environment::from_map({{"OMPI_COMM_WORLD_SIZE", "2"}, {"OMPI_COMM_WORLD_RANK", "1"}}));
  EXPECT_TRUE(launch.parallel());
  EXPECT_EQ(launch.world_size, 2);
  EXPECT_EQ(launch.world_rank, 1);
  EXPECT_EQ(launch.launcher, "OMPI_COMM_WORLD_SIZE=2");
}

TEST(LaunchEnvironment, PmiAndSlurm) {
  EXPECT_EQ(detect_launch(Environment::from_map({{"PMI_SIZE", "4"}, {"PMI_RANK", "3"}})).world_rank, 3);
  const auto srun = detect_launch(Environment::from_map({{"SLURM_NTASKS", "8"}, {"SLURM_PROCID", "5"}}));
  EXPECT_EQ(srun.world_size, 8);
  EXPECT_EQ(srun.world_rank, 5);
  const auto step = detect_launch(
      Environment::from_map({{"SLURM_NTASKS", "16"}, {"SLURM_STEP_NUM_TASKS", "2"}, {"SLURM_PROCID", "0"}}));
  EXPECT_EQ(step.world_size, 2);
  // A batch script in an 8-task allocation that runs linkscope directly (no srun) is not a parallel launch.
  EXPECT_FALSE(detect_launch(Environment::from_map({{"SLURM_NTASKS", "8"}})).parallel());
}

TEST(LaunchEnvironment, SingleTaskLauncherIsNotParallel) {
  EXPECT_FALSE(detect_launch(Environment::from_map({{"OMPI_COMM_WORLD_SIZE", "1"}})).parallel());
}

TEST(LaunchEnvironment, GarbageValuesAreIgnored) {
  EXPECT_FALSE(detect_launch(Environment::from_map({{"OMPI_COMM_WORLD_SIZE", "two"}})).parallel());
  EXPECT_FALSE(detect_launch(Environment::from_map({{"PMI_SIZE", "-3"}})).parallel());
  EXPECT_FALSE(detect_launch(Environment::from_map({{"PMI_SIZE", ""}})).parallel());
}

TEST(LaunchEnvironment, ParallelLaunchWithoutMpiIsRefused) {
  const auto launch = detect_launch(Environment::from_map({{"OMPI_COMM_WORLD_SIZE", "2"}}));
  try {
    refuse_parallel_launch_without_mpi(launch, false);
    FAIL() << "expected a usage error";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("built without MPI"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("OMPI_COMM_WORLD_SIZE=2"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(refuse_parallel_launch_without_mpi(launch, true));
}

}  // namespace
}  // namespace linkscope::runtime
