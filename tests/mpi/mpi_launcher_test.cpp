// linkscope_mpi_check under a real launcher (LINKSCOPE_TEST_LAUNCHER: mpirun, mpiexec.hydra or srun; ctest runs
// each variant): the node's MPI and the adapter of its family are opened at run time, every rank greets rank 0,
// a rank that stops answering is named within the deadline, and a rank that dies ends the job.
#include <gtest/gtest.h>

#include <chrono>

#include "support/mpi_launcher.hpp"
#include "support/run_command.hpp"

namespace linkscope {
namespace {

using test::RankCommand;

std::vector<RankCommand> tasks(int n, const std::string& mode, std::vector<std::string> env = {}) {
  return std::vector<RankCommand>(static_cast<std::size_t>(n), RankCommand{env, LINKSCOPE_MPI_CHECK, {mode}});
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(MpiLauncher, EveryRankGreetsRankZeroInOrder) {
  LINKSCOPE_REQUIRE_LAUNCHER(launcher);
  for (int n : {2, 3}) {
    const auto result = launcher.run(tasks(n, "hello"));
    ASSERT_EQ(result.exit_code, 0) << launcher.name() << " -n " << n << "\n" << result.out << result.err;
    EXPECT_NE(result.out.find("ok: " + std::to_string(n) + " ranks"), std::string::npos) << result.out;
    for (int r = 0; r < n; ++r) {
      const std::string line = "rank " + std::to_string(r) + " of " + std::to_string(n) + " on ";
      EXPECT_NE(result.out.find(line), std::string::npos) << result.out;
    }
    // One machine: every rank is on this node.
    EXPECT_NE(result.out.find("local rank " + std::to_string(n - 1) + " of " + std::to_string(n)), std::string::npos)
        << result.out;
    EXPECT_NE(result.out.find(launcher.expected_family() + " adapter"), std::string::npos) << result.out;
  }
}

TEST(MpiLauncher, TheLauncherChoosesTheFamilyUnlessForced) {
  LINKSCOPE_REQUIRE_LAUNCHER(launcher);
  if (launcher.name() == "slurm" && launcher.expected_family() == "mpich") {
    GTEST_SKIP() << "under srun --mpi=pmi2 Open MPI's own MPI_Init aborts the task (Debian's Open MPI has no Slurm "
                    "PMI-2 support): the error is Open MPI's, not linkscope's";
  }
  // An MPI of the other family initialises as a job of its own: each task sees one rank, and says so.
  const std::string other = launcher.expected_family() == "openmpi" ? "libmpich.so.12" : "libmpi.so.40";
  const auto result = launcher.run(tasks(2, "hello", {"LINKSCOPE_MPI_LIBRARY=" + other}));
  EXPECT_EQ(result.exit_code, 3) << result.out << result.err;
  EXPECT_NE(result.err.find("linkscope_mpi_check: error: MPI library " + other), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("sees 1 rank(s) but the launcher started 2"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("set LINKSCOPE_MPI_LIBRARY to the launcher's libmpi.so"), std::string::npos) << result.err;
}

TEST(MpiLauncher, SrunWithoutAnMpiPluginIsNamed) {
  LINKSCOPE_REQUIRE_LAUNCHER(launcher);
  if (launcher.name() != "slurm") GTEST_SKIP() << "srun only";
  const auto result = test::run_command(test::find_on_path("srun"), {"--mpi=none", "-n", "2", LINKSCOPE_MPI_CHECK, "hello"},
                                        {}, 60);
  EXPECT_EQ(result.exit_code, 3) << result.out << result.err;
  EXPECT_NE(result.err.find("linkscope_mpi_check: error: started by srun without an MPI plugin"), std::string::npos)
      << result.err;
}

TEST(MpiLauncher, ARankThatStopsAnsweringIsNamedWithinTheDeadline) {
  LINKSCOPE_REQUIRE_LAUNCHER(launcher);
  const auto start = std::chrono::steady_clock::now();
  const auto result = launcher.run(tasks(3, "stall"));
  EXPECT_LT(seconds_since(start), 30) << "the job should end about 2 s after rank 0 started waiting";
  EXPECT_EQ(result.exit_code, launcher.aborted_exit_code(4)) << result.out << result.err;
  EXPECT_NE(result.err.find("linkscope_mpi_check: error (rank 0): rank 2 did not answer within 2 s while gathering "
                            "the greetings; ending the MPI job"),
            std::string::npos)
      << result.err;
}

TEST(MpiLauncher, ARankThatDiesEndsTheJob) {
  LINKSCOPE_REQUIRE_LAUNCHER(launcher);
  const auto start = std::chrono::steady_clock::now();
  const auto result = launcher.run(tasks(2, "die"));
  EXPECT_LT(seconds_since(start), 30);
  EXPECT_NE(result.exit_code, 0);
  EXPECT_NE(result.exit_code, -9) << "the job hung";
  EXPECT_NE((result.out + result.err).find(launcher.death_notice(1)), std::string::npos) << result.out << result.err;
}

}  // namespace
}  // namespace linkscope
