#include "runtime/launch_environment.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <optional>

#include <fmt/format.h>

#include "core/error.hpp"

namespace linkscope::runtime {

namespace {

std::optional<int> positive_int(const Environment& env, const char* name) {
  const auto text = env.get(name);
  if (!text || text->empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text->c_str(), &end, 10);
  if (errno != 0 || end == text->c_str() || *end != '\0' || value < 0 || value > 1 << 24) return std::nullopt;
  return static_cast<int>(value);
}

struct Source {
  const char* size;
  const char* rank;
};
// First match wins: the MPI launchers' own variables describe this job step more precisely than Slurm's
// allocation-wide SLURM_NTASKS.
constexpr Source kSources[] = {{"OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK"},
                               {"PMI_SIZE", "PMI_RANK"},
                               {"SLURM_STEP_NUM_TASKS", "SLURM_PROCID"},
                               {"SLURM_NTASKS", "SLURM_PROCID"}};

}  // namespace

std::vector<std::string> launch_variable_names() {
  std::vector<std::string> names;
  for (const auto& source : kSources) {
    for (const char* name : {source.size, source.rank}) {
      if (std::find(names.begin(), names.end(), name) == names.end()) names.emplace_back(name);
    }
  }
  return names;
}

LaunchEnvironment detect_launch(const Environment& env) {
  LaunchEnvironment launch;
  for (const auto& source : kSources) {
    const auto size = positive_int(env, source.size);
    if (!size || *size < 1) continue;
    // Slurm sets SLURM_NTASKS for the whole allocation (also in a batch script that did not use srun);
    // only an srun task has SLURM_PROCID.
    const auto rank = positive_int(env, source.rank);
    if (std::string(source.size).rfind("SLURM_", 0) == 0 && !rank) continue;
    launch.world_size = *size;
    launch.world_rank = rank.value_or(0);
    launch.launcher = fmt::format("{}={}", source.size, *size);
    return launch;
  }
  return launch;
}

void refuse_parallel_launch_without_mpi(const LaunchEnvironment& launch, bool built_with_mpi) {
  if (!launch.parallel() || built_with_mpi) return;
  throw UsageError(fmt::format(
      "started as one of {} tasks ({}) but this linkscope was built without MPI: every task would run alone and "
      "print its own results; rebuild with an MPI adapter (CMake finds an Open MPI or MPICH mpi.h) or run one process "
      "with -g <GPUs>",
      launch.world_size, launch.launcher));
}

}  // namespace linkscope::runtime
