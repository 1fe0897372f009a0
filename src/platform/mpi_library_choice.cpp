#include "platform/mpi_library_choice.hpp"

#include <algorithm>

namespace linkscope::platform {

namespace {

const std::vector<std::string> kOpenMpiLibraries = {"libmpi.so.40"};
// Upstream MPICH, Intel MPI and MVAPICH install libmpi.so.12; Debian's and Ubuntu's MPICH libmpich.so.12.
const std::vector<std::string> kMpichLibraries = {"libmpi.so.12", "libmpich.so.12"};

bool has_prefix_variable(const Environment& env, std::string_view prefix) {
  const auto& all = env.all();
  const auto it = all.lower_bound(prefix);
  return it != all.end() && std::string_view(it->first).substr(0, prefix.size()) == prefix;
}

// The variables a launcher sets for its tasks, not those a user may have set (OMPI_MCA_*, PMIX_MCA_*: an Open MPI
// module's settings stay in the environment when MPICH's mpiexec starts the job).
bool open_mpi_launcher(const Environment& env) { return env.has("OMPI_COMM_WORLD_SIZE") || env.has("PMIX_RANK"); }

bool mpich_launcher(const Environment& env) {
  return !open_mpi_launcher(env) && (env.has("PMI_RANK") || env.has("PMI_FD"));
}

}  // namespace

std::vector<std::string> mpi_library_candidates(const Environment& env) {
  const auto forced = env.get("LINKSCOPE_MPI_LIBRARY");
  if (forced && !forced->empty()) return {*forced};
  const bool mpich_first = mpich_launcher(env);
  std::vector<std::string> candidates = mpich_first ? kMpichLibraries : kOpenMpiLibraries;
  const auto& rest = mpich_first ? kOpenMpiLibraries : kMpichLibraries;
  candidates.insert(candidates.end(), rest.begin(), rest.end());
  return candidates;
}

std::optional<std::string> srun_without_mpi_plugin(const Environment& env) {
  if (!env.has("SLURM_PROCID") || open_mpi_launcher(env) || has_prefix_variable(env, "PMI_") ||
      has_prefix_variable(env, "PMIX_")) {
    return std::nullopt;
  }
  return std::string(
      "started by srun without an MPI plugin (no PMI_* or PMIX_* variable): no MPI can join the tasks into one job; "
      "run srun --mpi=pmix (Open MPI) or srun --mpi=pmi2 (MPICH, Intel MPI, MVAPICH)");
}

std::optional<std::string> mpi_family_of(std::string_view library_version) {
  if (library_version.find("Open MPI") != std::string_view::npos) return std::string(kOpenMpiFamily);
  for (std::string_view mark : {"MPICH", "Intel(R) MPI", "MVAPICH"}) {
    if (library_version.find(mark) != std::string_view::npos) return std::string(kMpichFamily);
  }
  return std::nullopt;
}

std::string mpi_adapter_file(std::string_view family) { return "liblinkscope_mpi_" + std::string(family) + ".so"; }

std::vector<std::string> mpi_adapter_directories(const std::string& exe) {
  const auto slash = exe.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "" : exe.substr(0, slash);
  return {dir + "/../lib/linkscope", dir + "/lib/linkscope"};
}

}  // namespace linkscope::platform
