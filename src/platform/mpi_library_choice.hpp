#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/environment.hpp"

// Which MPI library to open under a launcher, and where the adapters are: the decisions of mpi_library.cpp that
// need no dlopen, so they are unit-tested.
namespace linkscope::platform {

// The two ABIs linkscope has an adapter for: "openmpi" (libmpi.so.40: Open MPI 3-5, HPC-X) and "mpich"
// (libmpi.so.12 / libmpich.so.12: MPICH 3.1+, Intel MPI, MVAPICH).
inline constexpr std::string_view kOpenMpiFamily = "openmpi";
inline constexpr std::string_view kMpichFamily = "mpich";

// The libraries to try, in order: LINKSCOPE_MPI_LIBRARY alone when set; otherwise every supported soname, the
// launcher's own family first (Open MPI's mpirun sets OMPI_COMM_WORLD_SIZE; MPICH's hydra and Slurm's pmi2 plugin
// set PMI_RANK or PMI_FD without it or PMIX_RANK; PMIx launchers are tried with Open MPI first). A user's own
// OMPI_MCA_* settings say nothing about the launcher.
std::vector<std::string> mpi_library_candidates(const Environment& env);

// A Slurm step started without an MPI plugin (srun --mpi=none, the default of many slurm.conf files): SLURM_PROCID
// is set but no PMI_* or PMIX_* variable, so no MPI can join its tasks into one job. Returns what to say then.
std::optional<std::string> srun_without_mpi_plugin(const Environment& env);

// The family of an MPI library from its MPI_Get_library_version text ("Open MPI v4.1.4, ...", "MPICH Version:
// 4.0.2 ...", "Intel(R) MPI Library 2021.10 ...", "MVAPICH2 Version ..."); nullopt when it is none of them.
std::optional<std::string> mpi_family_of(std::string_view library_version);

// The adapter's file name for a family: liblinkscope_mpi_<family>.so.
std::string mpi_adapter_file(std::string_view family);

// Where adapters are looked for, in order, beside the executable `exe`: <dir>/../lib/linkscope (installed:
// bin/linkscope and lib/linkscope/) and <dir>/lib/linkscope (the build tree: build/<preset>/linkscope).
std::vector<std::string> mpi_adapter_directories(const std::string& exe);

}  // namespace linkscope::platform
