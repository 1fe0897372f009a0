#pragma once
#include <string>
#include <vector>

#include "core/environment.hpp"

namespace linkscope::runtime {

// How this process was started: alone, or as one task of a parallel launcher (mpirun, srun, a PMI
// launcher). Read from the launcher's variables only, so it works before (or without) MPI.
struct LaunchEnvironment {
  int world_size = 1;     // tasks the launcher started (1 when none)
  int world_rank = 0;     // this task's index
  std::string launcher;   // e.g. "OMPI_COMM_WORLD_SIZE=2"; empty when not launched in parallel

  bool parallel() const { return world_size > 1; }
};

// Looks at OMPI_COMM_WORLD_SIZE/RANK (Open MPI), PMI_SIZE/PMI_RANK (MPICH, Intel MPI, PMI-1/2),
// Slurm's SLURM_STEP_NUM_TASKS/SLURM_PROCID inside an srun
// step, and SLURM_NTASKS/SLURM_PROCID. Non-numeric values are ignored.
LaunchEnvironment detect_launch(const Environment& env);

// Every variable detect_launch reads. A rank's child processes (doctor's steps) run without them, so that
// they run alone instead of taking the parent's place in the MPI job.
std::vector<std::string> launch_variable_names();

// A build without MPI adapters started as one of N > 1 tasks would run N independent single-process copies (each
// printing its own results: nccl-tests issues #27, #213). Throws UsageError (exit 2) in that case.
void refuse_parallel_launch_without_mpi(const LaunchEnvironment& launch, bool built_with_mpi);

}  // namespace linkscope::runtime
