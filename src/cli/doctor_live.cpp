// The live half of `linkscope doctor`: discover the machine and NCCL's model in this process, state the
// hypotheses, then measure the profile in child `linkscope` processes (p2p, patterns, one coll per op, ladder)
// and fold their Run documents into one. A broken machine gives a run that says what is broken, never an exit
// without a report: no driver, no GPU CUDA can use, no NCCL, a failing step, Ctrl-C.
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "cli/doctor_collect.hpp"
#include "cli/doctor_profile.hpp"
#include "cli/machine_discovery.hpp"
#include "cli/stop_signals.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/file_io.hpp"
#include "core/subprocess.hpp"
#include "core/temp_directory.hpp"
#include "core/terminal_text.hpp"
#include "diagnose/hypotheses.hpp"
#include "discover/live_discovery.hpp"
#include "discover/live_model_check.hpp"
#include "discover/live_system.hpp"
#include "discover/telemetry_sampler.hpp"
#include "model/run_file.hpp"
#include "model/run_merge.hpp"
#include "platform/cuda_facts.hpp"
#include "platform/nccl_library.hpp"

namespace linkscope::cli {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// Set by SIGINT/SIGTERM while the doctor measures: the running step is stopped and no other starts.
std::atomic<bool> g_stop_requested{false};
std::atomic<int> g_stop_signal{0};

extern "C" void request_stop(int signal_number) {
  g_stop_signal.store(signal_number);
  g_stop_requested.store(true);
}

class StepRunner {
 public:
  StepRunner(model::Run& run, const DoctorOptions& options, int total)
      : run_(run), options_(options), total_(total) {}

  bool stopped() const { return !run_.config.stopped.value_or("").empty(); }
  // The sampler that watches the GPUs during the steps (none: telemetry off).
  void watch_with(discover::TelemetrySampler* sampler) { sampler_ = sampler; }

  // Runs `linkscope ARGS --format json` in a child and merges its Run; a failing step becomes an error entry.
  void run(const std::string& step, std::vector<std::string> args) {
    ++index_;
    if (stopped()) return;
    if (g_stop_requested.load()) {
      stop_before(step);
      return;
    }
    std::fprintf(stderr, "linkscope doctor: [%d/%d] %s ...\n", index_, total_, step.c_str());
    const auto start = Clock::now();
    ChildSpec spec;
    spec.args = std::move(args);
    spec.set_env = options_.env_assignments;
    spec.unset_env = options_.child_unset_env;
    // Each step bounds its own hangs (collective watchdogs, copy gates); this only catches a child stuck elsewhere.
    spec.timeout_seconds = 900;
    spec.stop = &g_stop_requested;
    if (sampler_ != nullptr) {
      sampler_->begin_step(step);
      spec.on_start = [this](pid_t pid) { sampler_->add_own_pid(pid); };
    }
    const ChildResult child = run_child(spec);
    if (sampler_ != nullptr) sampler_->end_step();
    std::string problem;
    if (child.stopped) {
      problem = fmt::format("stopped by {} after {:.1f} s", signal_name(), seconds_since(start));
    } else if (child.timed_out) {
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
    if (child.stopped) {
      run_.config.stopped = fmt::format("interrupted ({}) during {}, {} of {} steps done", signal_name(), step,
                                        index_ - 1, total_);
    }
    std::fprintf(stderr, "linkscope doctor: [%d/%d] %s %s in %.1f s\n", index_, total_, step.c_str(),
                 problem.empty() ? "done" : "FAILED", seconds_since(start));
    if (sampler_ != nullptr) run_.measurements.telemetry = sampler_->snapshot();
    if (options_.checkpoint) options_.checkpoint(run_);
    if (options_.on_step_done) options_.on_step_done(step);
  }

  // A step that cannot run on this machine: recorded with the reason, so the report says what was not measured.
  void skip(const std::string& step, const std::string& why) {
    ++index_;
    if (stopped()) return;
    print_stderr_line(fmt::format("linkscope doctor: [{}/{}] {} skipped: {}", index_, total_, step, why));
    run_.config.skipped.push_back({step, why});
  }

 private:
  static std::string signal_name() { return stop_signal_name(g_stop_signal.load()); }

  void stop_before(const std::string& step) {
    run_.config.stopped = fmt::format("interrupted ({}) before {}, {} of {} steps done", signal_name(), step,
                                      index_ - 1, total_);
  }

  model::Run& run_;
  const DoctorOptions& options_;
  int total_;
  int index_ = 0;
  discover::TelemetrySampler* sampler_ = nullptr;
};

// What the doctor can measure here; the reason when it cannot.
struct Capabilities {
  std::string no_gpu;   // empty: CUDA shows at least one GPU
  std::string no_nccl;  // empty: libnccl.so.2 opens
  int gpus = 0;
};

Capabilities capabilities_of(const model::Run& run) {
  Capabilities can;
  const model::System& system = run.system;
  can.gpus = static_cast<int>(system.gpus.size());
  // CUDA decides what can be measured: without NVML (its facts missing) the copies and collectives still run.
  if (!system.cuda.available || system.cuda.device_count == 0 || system.gpus.empty()) {
    can.no_gpu = !system.driver.available && !system.cuda.available
                     ? "the NVIDIA driver is unavailable: " + system.driver.reason
                     : "CUDA shows no GPU" + (system.cuda.reason.empty() ? std::string() : ": " + system.cuda.reason);
  }
  if (run.environment.nccl_unavailable) can.no_nccl = *run.environment.nccl_unavailable;
  return can;
}

model::Run discover_machine(const DoctorOptions& options, const Environment& env) {
  capture::EnvOverrides overrides;
  for (const auto& assignment : options.env_assignments) overrides.push_back(parse_env_assignment(assignment));
  if (!options.capture_path.empty()) {
    model::Run run = capture::captured_run(capture::load_capture(options.capture_path, env), overrides, options.argv);
    run.config.subcommand = "doctor";
    run.config.profile = options.profile;
    return run;
  }
  discover::LiveDiscoveryOptions discovery;
  discovery.env_overrides = overrides;
  const MachineDiscovery machine = discover_this_machine(discovery, env);
  const discover::LiveModelCheck check = discover::check_live_model(machine.live, machine.env, machine.version);
  model::Run run = discover::topo_live_run(machine.live, check, machine.env, options.argv);
  run.config.subcommand = "doctor";
  run.config.profile = options.profile;
  // Opening NCCL (no communicator) says whether the collectives can run, and which NCCL they would use.
  try {
    const auto& nccl = platform::nccl_library();
    run.environment.nccl_library = nccl.path;
    run.environment.nccl_version = nccl.version_string();
  } catch (const Error& e) {
    run.environment.nccl_unavailable = e.what();
  }
  return run;
}

// How long the doctor watches the GPUs before its first step: the one window in which any utilization or memory in
// use is another job's (diagnose/foreign_activity.hpp judges it from utilization_settle_s on).
constexpr double kQuietWindowSeconds = 1.5;

// The telemetry sampler over the GPUs discovery found, started; none with LINKSCOPE_TELEMETRY=off (the overhead
// comparison, bench/device/telemetry_overhead.sh). LINKSCOPE_TELEMETRY=<Hz> sets the rate (default 10).
std::unique_ptr<discover::TelemetrySampler> start_telemetry(const model::Run& run) {
  const char* setting = std::getenv("LINKSCOPE_TELEMETRY");
  const std::string mode = setting != nullptr ? setting : "";
  double hz = 10;
  if (mode == "off" || mode == "0") {
    print_stderr_line("linkscope doctor: telemetry off (LINKSCOPE_TELEMETRY=" + mode + ")");
    return nullptr;
  }
  if (!mode.empty() && mode != "on") {
    char* end = nullptr;
    hz = std::strtod(mode.c_str(), &end);
    if (end == mode.c_str() || *end != '\0' || !(hz > 0 && hz <= 100)) {
      throw UsageError("LINKSCOPE_TELEMETRY must be off, on or a rate in Hz (0 < rate <= 100), not " + mode);
    }
  }
  discover::TelemetryOptions telemetry;
  telemetry.interval_s = 1.0 / hz;
  const char* nvml_library = std::getenv("LINKSCOPE_NVML_LIBRARY");
  telemetry.nvml_library = nvml_library != nullptr ? nvml_library : "";
  if (!run.system.sysfs_root.empty()) telemetry.sysfs_root = run.system.sysfs_root;
  for (const auto& gpu : run.system.gpus) {
    if (gpu.nvml_index) {
      telemetry.gpus.push_back({static_cast<unsigned>(*gpu.nvml_index), gpu.cuda_ordinal, gpu.pci_bdf, gpu.uuid});
    }
  }
  auto sampler = std::make_unique<discover::TelemetrySampler>(telemetry);
  sampler->start();
  return sampler;
}

}  // namespace

model::Run collect_captured_run(const DoctorOptions& options) {
  const Environment env = Environment::from_process();
  model::Run run = discover_machine(options, env);
  run.hypotheses = diagnose::make_hypotheses(run);
  run.config.skipped.push_back({"measurements", "a capture holds the machine's facts, not measurements: run "
                                                "`linkscope doctor` on that machine to measure"});
  return run;
}

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
  if (options.checkpoint) options.checkpoint(run);
  if (options.cross_host_only) return run;  // under MPI: this host's facts only, the cross-host tests follow

  const Capabilities can = capabilities_of(run);
  const int steps = 3 + static_cast<int>(profile.collectives.size()) + (profile.p2p_bidirectional ? 1 : 0);
  StepRunner runner(run, options, steps);
  const ScopedStopSignals stop_on_signal(request_stop);
  g_stop_requested.store(false);
  if (!can.no_gpu.empty()) {
    std::fprintf(stderr, "linkscope doctor: nothing to measure (%s); diagnosing what discovery found\n",
                 can.no_gpu.c_str());
    run.record_error("doctor", "nothing measured: " + can.no_gpu);
    return run;
  }
  const auto sampler = start_telemetry(run);
  runner.watch_with(sampler.get());
  if (sampler != nullptr && sampler->sampling()) {
    std::fprintf(stderr, "linkscope doctor: watching the GPUs for %.1f s before measuring\n", kQuietWindowSeconds);
    sampler->wait_until(kQuietWindowSeconds);
  }
  std::fprintf(stderr, "linkscope doctor: %zu hypotheses stated; measuring\n", run.hypotheses.size());
  // One GPU is a real machine: its host link, latency and local memory are measured (p2p); there is no pair for
  // patterns, and a collective over one rank moves no data between GPUs.
  const std::string no_pair = can.gpus < 2 ? "one GPU: no GPU pair to measure" : "";
  const std::string no_collective = !can.no_nccl.empty() ? can.no_nccl
                                    : can.gpus < 2       ? "one GPU: a collective over one rank moves no data between GPUs"
                                                         : "";
  runner.run("p2p", profile.p2p.args());
  if (profile.p2p_bidirectional) {
    if (no_pair.empty()) {
      runner.run("p2p bidirectional", profile.p2p_bidirectional->args());
    } else {
      runner.skip("p2p bidirectional", no_pair);
    }
  }
  if (no_pair.empty()) {
    runner.run("patterns", profile.patterns.args());
  } else {
    runner.skip("patterns", no_pair);
  }
  for (const auto& step : profile.collectives) {
    if (!no_collective.empty()) {
      runner.skip("coll " + step.op, no_collective);
    } else {
      runner.run("coll " + step.op, step.args());
    }
  }
  if (!no_collective.empty()) {
    runner.skip("ladder " + profile.ladder.op, no_collective);
  } else {
    // The ladder reads the hardware facts from a file; where no temporary file can be made it is skipped, saying why.
    TempDirectory scratch("linkscope-doctor", env);
    const std::string facts = scratch.write("facts.json", model::run_text(run));
    if (facts.empty()) {
      runner.skip("ladder " + profile.ladder.op, scratch.why());
    } else {
      runner.run("ladder " + profile.ladder.op, profile.ladder.args(facts));
    }
  }
  if (sampler != nullptr) run.measurements.telemetry = sampler->finish();
  run.config.measured_seconds = seconds_since(start);
  std::fprintf(stderr, "linkscope doctor: measured in %.1f s%s\n", seconds_since(start),
               run.config.stopped ? (" (" + *run.config.stopped + ")").c_str() : "");
  return run;
}

}  // namespace linkscope::cli
