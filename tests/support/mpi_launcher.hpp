#pragma once
#include <string>
#include <vector>

#include "support/run_command.hpp"

namespace linkscope::test {

// One task of a parallel job: `env ENV... PROGRAM ARGS...`.
struct RankCommand {
  std::vector<std::string> env;
  std::string program;
  std::vector<std::string> args;
};

// The launcher the MPI tests run under, from LINKSCOPE_TEST_LAUNCHER:
//   openmpi (default)  Open MPI's mpirun, tasks as an MPMD job (`-np 1 env ... prog : -np 1 ...`)
//   mpich              MPICH's mpiexec.hydra (fork launcher), the same MPMD form
//   slurm              Slurm's srun --mpi=$LINKSCOPE_TEST_SRUN_MPI (pmix when unset) --multi-prog, one script per
//                      task, against the running cluster (scripts/slurm-test-cluster.sh starts one on localhost)
class MpiLauncher {
 public:
  static MpiLauncher from_environment();

  const std::string& name() const { return name_; }
  // Why the launcher cannot run here ("" when it can): the test skips with it, or fails when required().
  const std::string& unavailable() const { return unavailable_; }
  // CI=true or LINKSCOPE_TEST_REQUIRE_LAUNCHER=1: a missing launcher fails the test instead of skipping it.
  static bool required();

  // Starts one task per entry (task i = rank i) and waits; `env` goes to the launcher itself ("NAME" unsets).
  CommandResult run(const std::vector<RankCommand>& ranks, const std::vector<std::string>& env = {},
                    int timeout_seconds = 60) const;
  // The MPI family linkscope should pick under this launcher: Open MPI under mpirun and srun --mpi=pmix,
  // MPICH under hydra and srun --mpi=pmi2 (PMI_* variables without OMPI_* or PMIX_*).
  std::string expected_family() const;
  // The launcher's exit code after a task called MPI_Abort(MPI_COMM_WORLD, code): the code itself, except under
  // srun --mpi=pmi2 with MPICH, where the abort cancels the step and srun exits 137 (its tasks were killed).
  int aborted_exit_code(int code) const;
  // What the launcher prints when task `rank` dies: Open MPI names the rank, Slurm the task, hydra neither.
  std::string death_notice(int rank) const;

 private:
  std::string name_;
  std::string program_;
  std::string srun_mpi_;
  std::string unavailable_;
};

// The first `name` on PATH; "" when none.
std::string find_on_path(const std::string& name);

// A test's MPI launcher, or the skip (or failure, where launchers are required) that says why there is none.
#define LINKSCOPE_REQUIRE_LAUNCHER(launcher)                                                      \
  const auto launcher = ::linkscope::test::MpiLauncher::from_environment();                        \
  if (!launcher.unavailable().empty()) {                                                           \
    if (::linkscope::test::MpiLauncher::required()) FAIL() << launcher.unavailable();              \
    GTEST_SKIP() << launcher.unavailable();                                                        \
  }

}  // namespace linkscope::test
