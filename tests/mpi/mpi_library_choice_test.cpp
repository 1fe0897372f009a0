#include "platform/mpi_library_choice.hpp"

#include <gtest/gtest.h>

namespace linkscope::platform {
namespace {

using Strings = std::vector<std::string>;

TEST(MpiLibraryChoice, TheLaunchersFamilyIsTriedFirst) {
  const Strings open_mpi_first = {"libmpi.so.40", "libmpi.so.12", "libmpich.so.12"};
  const Strings mpich_first = {"libmpi.so.12", "libmpich.so.12", "libmpi.so.40"};
  EXPECT_EQ(mpi_library_candidates(Environment::from_map({})), open_mpi_first);
  EXPECT_EQ(mpi_library_candidates(Environment::from_map({{"OMPI_COMM_WORLD_SIZE", "2"}, {"PMIX_RANK", "0"}})),
            open_mpi_first);
  // hydra, and srun --mpi=pmi2
  EXPECT_EQ(mpi_library_candidates(Environment::from_map({{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}})), mpich_first);
  EXPECT_EQ(mpi_library_candidates(Environment::from_map({{"PMI_FD", "5"}, {"SLURM_PROCID", "0"}})), mpich_first);
  // An Open MPI module's settings left in the environment of an MPICH job.
  EXPECT_EQ(mpi_library_candidates(Environment::from_map(
                {{"OMPI_MCA_btl", "self,vader"}, {"OMPI_ALLOW_RUN_AS_ROOT", "1"}, {"PMI_RANK", "0"}, {"PMI_FD", "6"}})),
            mpich_first);
  // srun --mpi=pmix: PMIx is Open MPI's native runtime.
  EXPECT_EQ(mpi_library_candidates(Environment::from_map({{"PMIX_RANK", "0"}, {"PMI_RANK", "0"}})), open_mpi_first);
}

TEST(MpiLibraryChoice, LinkscopeMpiLibraryForcesOne) {
  EXPECT_EQ(mpi_library_candidates(Environment::from_map({{"LINKSCOPE_MPI_LIBRARY", "/opt/x/libmpi.so.12"},
                                                          {"OMPI_COMM_WORLD_SIZE", "2"}})),
            Strings{"/opt/x/libmpi.so.12"});
  EXPECT_EQ(mpi_library_candidates(Environment::from_map({{"LINKSCOPE_MPI_LIBRARY", ""}})).size(), 3u);
}

TEST(MpiLibraryChoice, AnSrunStepWithoutAnMpiPluginIsNamed) {
  const auto none = srun_without_mpi_plugin(Environment::from_map({{"SLURM_PROCID", "0"}, {"SLURM_STEP_NUM_TASKS", "2"}}));
  ASSERT_TRUE(none.has_value());
  EXPECT_NE(none->find("run srun --mpi=pmix (Open MPI) or srun --mpi=pmi2"), std::string::npos) << *none;
  EXPECT_FALSE(srun_without_mpi_plugin(Environment::from_map({{"SLURM_PROCID", "0"}, {"PMIX_RANK", "0"}})));
  EXPECT_FALSE(srun_without_mpi_plugin(Environment::from_map({{"SLURM_PROCID", "0"}, {"PMI_FD", "7"}})));
  // mpirun inside a Slurm allocation: Open MPI's own launcher.
  EXPECT_FALSE(srun_without_mpi_plugin(Environment::from_map({{"SLURM_PROCID", "0"}, {"OMPI_COMM_WORLD_SIZE", "2"}})));
  EXPECT_TRUE(srun_without_mpi_plugin(Environment::from_map({{"SLURM_PROCID", "0"}, {"OMPI_MCA_btl", "self"}})));
  EXPECT_FALSE(srun_without_mpi_plugin(Environment::from_map({})));
}

TEST(MpiLibraryChoice, TheFamilyComesFromTheLibrarysOwnVersion) {
  EXPECT_EQ(mpi_family_of("Open MPI v4.1.4, package: Debian OpenMPI, ident: 4.1.4, repo rev: v4.1.4, May 26, 2022"),
            "openmpi");
  EXPECT_EQ(mpi_family_of("MPICH Version:      4.0.2\nMPICH Release date: Thu Apr  7 12:34:45 CDT 2022"), "mpich");
  EXPECT_EQ(mpi_family_of("Intel(R) MPI Library 2021.10 for Linux* OS"), "mpich");
  EXPECT_EQ(mpi_family_of("MVAPICH2 Version      :\t2.3.7"), "mpich");
  EXPECT_EQ(mpi_family_of("Some Other MPI 1.0"), std::nullopt);
  EXPECT_EQ(mpi_family_of(""), std::nullopt);
}

TEST(MpiLibraryChoice, AdaptersLiveInLibLinkscopeBesideTheBinary) {
  EXPECT_EQ(mpi_adapter_file("mpich"), "liblinkscope_mpi_mpich.so");
  EXPECT_EQ(mpi_adapter_directories("/opt/linkscope/bin/linkscope"),
            (Strings{"/opt/linkscope/bin/../lib/linkscope", "/opt/linkscope/bin/lib/linkscope"}));
  EXPECT_EQ(mpi_adapter_directories("/linkscope"), (Strings{"/../lib/linkscope", "/lib/linkscope"}));
}

}  // namespace
}  // namespace linkscope::platform
