// The run-time MPI loader without a launcher: no MPI is opened at all, and where one is needed but unusable the
// error (exit 3) names every library and adapter path that was tried.
#include <gtest/gtest.h>

#include <filesystem>

#include "support/mpi_launcher.hpp"
#include "support/temp_dir.hpp"

namespace linkscope {
namespace {

// A launcher's variables without the launcher: enough for linkscope to look for MPI.
const std::vector<std::string> kFakeOpenMpiTask = {"OMPI_COMM_WORLD_SIZE=2", "OMPI_COMM_WORLD_RANK=0"};

TEST(MpiLoader, NoLauncherOpensNoMpi) {
  const auto result = test::run_command(LINKSCOPE_MPI_CHECK, {"hello"}, {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE",
                                                                        "SLURM_STEP_NUM_TASKS", "SLURM_NTASKS"});
  EXPECT_EQ(result.exit_code, 0) << result.err;
  EXPECT_EQ(result.out, "no launcher: single process, no MPI library loaded\n");
}

TEST(MpiLoader, NoUsableMpiIsExit3NamingWhatWasTried) {
  auto env = kFakeOpenMpiTask;
  env.push_back("LINKSCOPE_MPI_LIBRARY=/nonexistent/libmpi.so.40");
  const auto result = test::run_command(LINKSCOPE_MPI_CHECK, {"hello"}, env);
  EXPECT_EQ(result.exit_code, 3) << result.err;
  EXPECT_EQ(result.err.rfind("linkscope_mpi_check: error: no MPI library found: tried /nonexistent/libmpi.so.40: "
                             "/nonexistent/libmpi.so.40: cannot open shared object file",
                             0),
            0u)
      << result.err;
  EXPECT_NE(result.err.find("or set LINKSCOPE_MPI_LIBRARY to the libmpi.so of the MPI that started the job"),
            std::string::npos)
      << result.err;
}

TEST(MpiLoader, AMissingAdapterIsNamedWithItsPaths) {
  // The program alone, without lib/linkscope beside it, as a binary copied without its adapters would be.
  test::TempDir dir;
  const std::string copy = dir.path() + "/bin/linkscope_mpi_check";
  std::filesystem::create_directories(dir.path() + "/bin");
  std::filesystem::copy_file(LINKSCOPE_MPI_CHECK, copy);
  std::filesystem::permissions(copy, std::filesystem::perms::owner_all);
  auto env = kFakeOpenMpiTask;
  env.push_back("LINKSCOPE_MPI_LIBRARY=libmpi.so.40");
  const auto result = test::run_command(copy, {"hello"}, env);
  if (result.err.find("no MPI library found") != std::string::npos) GTEST_SKIP() << "Open MPI is not installed here";
  EXPECT_EQ(result.exit_code, 3) << result.err;
  EXPECT_NE(result.err.find("MPI library libmpi.so.40 (Open MPI v"), std::string::npos) << result.err;
  EXPECT_NE(result.err.find("was found but not linkscope's adapter for it: " + dir.path() +
                            "/bin/../lib/linkscope/liblinkscope_mpi_openmpi.so: not found; " + dir.path() +
                            "/bin/lib/linkscope/liblinkscope_mpi_openmpi.so: not found"),
            std::string::npos)
      << result.err;
}

}  // namespace
}  // namespace linkscope
