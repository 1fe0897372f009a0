// The live half of `linkscope doctor`: discover the machine and NCCL's model in this process, state the
// hypotheses, then measure the profile in child `linkscope` processes (p2p, patterns, one coll per op, ladder)
// and fold their Run documents into one.
#include <stdlib.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "cli/doctor_collect.hpp"
#include "cli/doctor_profile.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/file_io.hpp"
#include "core/subprocess.hpp"
#include "diagnose/hypotheses.hpp"
#include "discover/live_discovery.hpp"
#include "discover/live_system.hpp"
#include "discover/live_model_check.hpp"
#include "discover/nvml_source.hpp"
#include "model/run_file.hpp"
#include "model/run_merge.hpp"
#include "platform/cuda_facts.hpp"

namespace linkscope::cli {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// A temporary file that is removed when it goes out of scope (the ladder reads the hardware facts from it).
class TempFile {
 public:
  explicit TempFile(const std::string& content) {
    const char* base = std::getenv("TMPDIR");
    path_ = std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/linkscope-doctor-XXXXXX";
    const int fd = mkstemp(path_.data());
    if (fd < 0) throw Error(ExitCode::kInternal, "doctor: cannot create a temporary file in " + path_);
    close(fd);
    write_file_atomically(path_, content);
  }
  ~TempFile() { unlink(path_.c_str()); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

class StepRunner {
 public:
  StepRunner(model::Run& run, const DoctorOptions& options, int total)
      : run_(run), options_(options), total_(total) {}

  // Runs `linkscope ARGS --format json` in a child and merges its Run; a failing step becomes an error entry.
  void run(const std::string& step, std::vector<std::string> args) {
    ++index_;
    std::fprintf(stderr, "linkscope doctor: [%d/%d] %s ...\n", index_, total_, step.c_str());
    const auto start = Clock::now();
    ChildSpec spec;
    spec.args = std::move(args);
    spec.set_env = options_.env_assignments;
    spec.unset_env = options_.child_unset_env;
    // Each step bounds its own hangs (collective watchdogs, copy gates); this only catches a child stuck elsewhere.
    spec.timeout_seconds = 900;
    const ChildResult child = run_child(spec);
    std::string problem;
    if (child.timed_out) {
      problem = "did not finish within 900 s and was stopped";
    } else if (child.exit_code != 0) {
      problem = fmt::format("exit {}: {}", child.exit_code, last_line(child.err));
    }
    // Whatever the exit code, keep what the step measured (a wrong copy still has its numbers).
    if (!child.out.empty()) {
      try {
        model::merge_child_run(run_, model::parse_run_text(child.out, "the " + step + " step's output"), step);
      } catch (const std::exception& e) {
        if (problem.empty()) problem = std::string("its output is not a Run document: ") + e.what();
      }
    }
    if (!problem.empty()) run_.record_error(step, problem);
    std::fprintf(stderr, "linkscope doctor: [%d/%d] %s %s in %.1f s\n", index_, total_, step.c_str(),
                 problem.empty() ? "done" : "FAILED", seconds_since(start));
    if (options_.on_step_done) options_.on_step_done(step);
  }

 private:
  model::Run& run_;
  const DoctorOptions& options_;
  int total_;
  int index_ = 0;
};

model::Run discover_machine(const DoctorOptions& options, const Environment& env) {
  discover::LiveDiscoveryOptions discovery;
  for (const auto& assignment : options.env_assignments) discovery.env_overrides.push_back(parse_env_assignment(assignment));
  const char* nvml_library = std::getenv("LINKSCOPE_NVML_LIBRARY");
  auto nvml = discover::make_nvml_library_source(nvml_library != nullptr ? nvml_library : "");
  auto cuda = platform::make_cuda_runtime_source();
  const discover::LiveDiscovery live = discover::discover_live(*nvml, *cuda, env, discovery);
  if (!live.facts.driver.available) {
    throw DeviceError("doctor needs the NVIDIA driver: " + live.facts.driver.reason +
                      " (linkscope topo shows what sysfs sees; linkscope doctor --xml FILE diagnoses a topology file)");
  }
  if (!live.facts.cuda.available || live.facts.cuda.device_count == 0) {
    throw DeviceError("doctor found no usable CUDA GPU: " +
                      (live.facts.cuda.reason.empty() ? std::string("no device visible") : live.facts.cuda.reason));
  }
  const discover::LiveModelCheck check = discover::check_live_model(live, env);
  model::Run run = discover::topo_live_run(live, check, env, options.argv);
  run.config.subcommand = "doctor";
  run.config.profile = options.profile;
  return run;
}

}  // namespace

model::Run collect_live_run(const DoctorOptions& options) {
  const DoctorProfile profile = doctor_profile(options.profile);
  Environment env = Environment::from_process();
  for (const auto& assignment : options.env_assignments) {
    const auto [name, value] = parse_env_assignment(assignment);
    env.set(name, value);
  }
  const auto start = Clock::now();
  std::fprintf(stderr, "linkscope doctor: discovering GPUs, links and NCCL's topology (%s profile) ...\n",
               profile.name.c_str());
  model::Run run = discover_machine(options, env);

  // Predictions are made from the hardware facts and the model before anything is measured.
  run.hypotheses = diagnose::make_hypotheses(run);
  if (options.cross_host_only) return run;  // under MPI: this host's facts only, the cross-host tests follow
  std::fprintf(stderr, "linkscope doctor: %zu hypotheses stated; measuring\n", run.hypotheses.size());

  const int steps = 3 + static_cast<int>(profile.collectives.size()) + (profile.p2p_bidirectional ? 1 : 0);
  StepRunner runner(run, options, steps);
  runner.run("p2p", profile.p2p.args());
  if (profile.p2p_bidirectional) runner.run("p2p bidirectional", profile.p2p_bidirectional->args());
  runner.run("patterns", profile.patterns.args());
  for (const auto& step : profile.collectives) runner.run("coll " + step.op, step.args());
  const TempFile facts(model::run_text(run));
  runner.run("ladder " + profile.ladder.op, profile.ladder.args(facts.path()));
  run.config.measured_seconds = seconds_since(start);
  std::fprintf(stderr, "linkscope doctor: measured in %.1f s\n", seconds_since(start));
  return run;
}

}  // namespace linkscope::cli
