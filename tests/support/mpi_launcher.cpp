#include "support/mpi_launcher.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

#include "support/temp_dir.hpp"

namespace linkscope::test {

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

// Open MPI in CI containers runs as root and may have fewer cores than ranks.
const std::vector<std::string> kOpenMpiEnv = {"OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
                                              "OMPI_MCA_btl_vader_single_copy_mechanism=none"};

std::string shell_quote(const std::string& word) {
  std::string quoted = "'";
  for (char c : word) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// The MPMD form of mpirun and mpiexec.hydra: `-np 1 env VARS PROG ARGS : -np 1 ...`.
std::vector<std::string> mpmd_args(const std::vector<RankCommand>& ranks, const std::string& count_flag) {
  std::vector<std::string> args;
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    if (i > 0) args.push_back(":");
    args.insert(args.end(), {count_flag, "1", "env"});
    args.insert(args.end(), ranks[i].env.begin(), ranks[i].env.end());
    args.push_back(ranks[i].program);
    args.insert(args.end(), ranks[i].args.begin(), ranks[i].args.end());
  }
  return args;
}

// srun --multi-prog takes one line per task; each task runs a script that quotes its words exactly.
std::string write_multi_prog(const TempDir& dir, const std::vector<RankCommand>& ranks) {
  const std::string conf = dir.path() + "/multi-prog.conf";
  std::ofstream lines(conf);
  for (std::size_t i = 0; i < ranks.size(); ++i) {
    const std::string script = dir.path() + "/task" + std::to_string(i) + ".sh";
    std::ofstream text(script);
    text << "#!/bin/sh\nexec env";
    for (const auto& word : ranks[i].env) text << ' ' << shell_quote(word);
    text << ' ' << shell_quote(ranks[i].program);
    for (const auto& word : ranks[i].args) text << ' ' << shell_quote(word);
    text << '\n';
    text.close();
    chmod(script.c_str(), 0755);
    lines << i << ' ' << script << '\n';
  }
  return conf;
}

// sinfo's node states that can run a step (a node still completing the previous job's step is one).
bool node_up(const std::string& states) {
  for (const char* state : {"idle", "mixed", "allocated", "completing"}) {
    if (states.find(state) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

std::string find_on_path(const std::string& name) {
  const std::string dirs = env_or("PATH", "/usr/bin:/bin");
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const std::string candidate = dirs.substr(start, end - start) + "/" + name;
    if (access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

bool MpiLauncher::required() {
  return env_or("CI", "") == "true" || env_or("LINKSCOPE_TEST_REQUIRE_LAUNCHER", "") == "1";
}

MpiLauncher MpiLauncher::from_environment() {
  MpiLauncher launcher;
  launcher.name_ = env_or("LINKSCOPE_TEST_LAUNCHER", "openmpi");
  if (launcher.name_ == "openmpi") {
    launcher.program_ = find_on_path("mpirun.openmpi");
    if (launcher.program_.empty()) launcher.program_ = find_on_path("mpirun");
    if (launcher.program_.empty()) launcher.unavailable_ = "mpirun not found on PATH: install openmpi-bin (scripts/install-deps.sh)";
  } else if (launcher.name_ == "mpich") {
    launcher.program_ = find_on_path("mpiexec.hydra");
    if (launcher.program_.empty()) launcher.unavailable_ = "mpiexec.hydra not found on PATH: install mpich (scripts/install-deps.sh)";
  } else if (launcher.name_ == "slurm") {
    launcher.program_ = find_on_path("srun");
    launcher.srun_mpi_ = env_or("LINKSCOPE_TEST_SRUN_MPI", "pmix");
    const std::string sinfo = find_on_path("sinfo");
    if (launcher.program_.empty() || sinfo.empty()) {
      launcher.unavailable_ = "srun or sinfo not found on PATH: install slurm-wlm (scripts/install-deps.sh)";
    } else if (!node_up(run_command(sinfo, {"-h", "-o", "%T"}, {}, 10).out)) {
      launcher.unavailable_ = "no Slurm cluster answers (sinfo): start one with scripts/slurm-test-cluster.sh start";
    }
  } else {
    launcher.unavailable_ = "LINKSCOPE_TEST_LAUNCHER='" + launcher.name_ + "' is none of openmpi, mpich, slurm";
  }
  return launcher;
}

CommandResult MpiLauncher::run(const std::vector<RankCommand>& ranks, const std::vector<std::string>& env,
                               int timeout_seconds) const {
  // Open MPI's settings stay in the environment of the other launchers' jobs, as a user's Open MPI module would
  // leave them: they must not decide which MPI is opened.
  std::vector<std::string> all_env = kOpenMpiEnv;
  all_env.insert(all_env.end(), env.begin(), env.end());
  if (name_ == "openmpi") {
    std::vector<std::string> args = {"--allow-run-as-root", "--oversubscribe"};
    const auto tasks = mpmd_args(ranks, "-np");
    args.insert(args.end(), tasks.begin(), tasks.end());
    return run_command(program_, args, all_env, timeout_seconds);
  }
  if (name_ == "mpich") {
    std::vector<std::string> args = {"-launcher", "fork"};
    const auto tasks = mpmd_args(ranks, "-n");
    args.insert(args.end(), tasks.begin(), tasks.end());
    return run_command(program_, args, all_env, timeout_seconds);
  }
  TempDir dir;
  const std::string conf = write_multi_prog(dir, ranks);
  // --overcommit: jobs of more tasks than the test node's 8 CPUs (the 16-host isolation tests) share them.
  return run_command(program_,
                     {"--mpi=" + srun_mpi_, "-n", std::to_string(ranks.size()), "--overcommit", "--kill-on-bad-exit=1",
                      "--multi-prog", conf},
                     all_env, timeout_seconds);
}

std::string MpiLauncher::expected_family() const {
  if (name_ == "slurm") return srun_mpi_ == "pmix" ? "openmpi" : "mpich";
  return name_;
}

int MpiLauncher::aborted_exit_code(int code) const {
  return name_ == "slurm" && expected_family() == "mpich" ? 137 : code;
}

std::string MpiLauncher::death_notice(int rank) const {
  if (name_ == "slurm") return "task " + std::to_string(rank);
  if (name_ == "mpich") return "BAD TERMINATION OF ONE OF YOUR APPLICATION PROCESSES";  // hydra names no rank
  return "rank " + std::to_string(rank);
}

}  // namespace linkscope::test
