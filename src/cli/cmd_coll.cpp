// `linkscope coll`: NCCL collective benchmark with nccl-tests' flags, per-size statistics from device events,
// verification of every size, and the runtime layer (what NCCL chose). Also what runs behind the
// all_reduce_perf, all_gather_perf, ... links (plan/nccl_tests_personality.hpp). The run itself is
// measure::run_collectives; this file turns flags into its plan, prints as results arrive and writes the Run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "cli/coll_printer.hpp"
#include "cli/coll_processes.hpp"
#include "cli/command.hpp"
#include "core/error.hpp"
#include "core/file_io.hpp"
#include "core/terminal_text.hpp"
#include "measure/collective_run.hpp"
#include "measure/devapi_gate.hpp"
#include "model/run.hpp"
#include "model/coll_sampling.hpp"
#include "model/run_file.hpp"
#include "plan/collective_run_plan.hpp"
#include "plan/nccl_tests_personality.hpp"
#include "platform/cuda_device_info.hpp"
#include "platform/nccl_version.hpp"

namespace linkscope::cli {

namespace {

using coll::OutputFormat;

struct CollState {
  coll::CollOptions options;
  bool as_nccl_tests = false;
  std::string output_file;
  std::string format = "text";
  std::vector<std::string> argv;
  bool dry_run = false;
  CLI::App* app = nullptr;
};

bool given(const CollState& s, const char* name) { return s.app->count(name) > 0; }

// nccl-tests' defaults for every flag the user did not give (the all_reduce_perf ... personality).
void apply_nccl_tests_defaults(CollState& s) {
  auto& o = s.options;
  if (!given(s, "-b")) o.min_bytes = "32M";
  if (!given(s, "-e")) o.max_bytes = "32M";
  if (!given(s, "-i")) o.step_bytes = "1M";
  if (!given(s, "-f")) o.step_factor = 1;
  if (!given(s, "-n")) o.iters = 20;
  if (!given(s, "-a")) o.average = 1;
  if (!given(s, "--format")) s.format = "nccl-tests";
}

OutputFormat parse_format(const std::string& text) {
  if (text == "json") return OutputFormat::kJson;
  if (text == "nccl-tests") return OutputFormat::kNcclTests;
  return OutputFormat::kText;
}

// The Run document of a finished run (rank 0): environment, runtime layer, every series, its failures as errors.
model::Run coll_run_document(const CollState& state, const CollProcesses& processes, const measure::CollectiveRun& result,
                             const platform::NcclLibraryInfo& nccl) {
  const coll::CollPlan& plan = result.setup.plan;
  model::Run run = model::make_run("coll", state.argv);
  run.environment.variables = processes.env.relevant();
  run.environment.nccl_library = nccl.path;
  run.environment.nccl_version = nccl.version;
  run.environment.nccl_headers = platform::nccl_version_string(platform::nccl_headers_version_code());
  run.environment.launch = processes.launch.parallel() ? processes.launch.launcher : "single process";
  run.runtime.nccl_version = nccl.version;
  if (result.runtime) run.runtime.runs.push_back(*result.runtime);
  run.measurements.collectives = result.series;
  for (const auto& s : result.series) {
    for (const auto& p : s.points) {
      if (p.status == "ok") continue;
      run.record_error(fmt::format("coll {} {} {} B {}", coll::op_name(s.op), coll::type_name(s.dtype), p.requested_bytes,
                                   p.in_place ? "in place" : "out of place"),
                       fmt::format("{}: {}", p.status, p.reason.value_or("")));
    }
  }
  run.config.extra["coll"] = {{"format", std::string(coll::format_name(state.options.format))},
                              {"sizes_bytes", plan.sizes},
                              {"timeout_s", plan.timeout_s},
                              {"notes", plan.notes}};
  model::put_coll_sampling(run.config, coll_sampling_of(plan));
  return run;
}

int run_coll_processes(const CollState& state, CollProcesses& processes, const coll::CollPlan& plan,
                       std::chrono::steady_clock::time_point wall_start) {
  const bool printer = processes.group->rank() == 0;
  // NCCL first: a missing library is reported the same way with or without a GPU.
  const platform::NcclLibraryInfo nccl = platform::nccl_library_info();
  if (plan.device_api) measure::check_device_api_available();
  measure::CollectiveRequest request;
  request.plan = plan;
  request.devices = coll_gpus(plan, processes);
  request.launch = processes.mpi ? "mpi" : "single-process";
  request.nccl_env = processes.env.nccl_variables();
  // Under MPI every process must stop at a failing size together: the job ends (run_coll).
  request.size_errors = processes.mpi ? measure::SizeErrors::kThrow : measure::SizeErrors::kRecordAndContinue;
  request.capture = processes.capture.get();
  request.runtime_context = fmt::format("coll {}", coll::op_name(plan.op));
  request.init_timeout_message = fmt::format(
      "linkscope: error: NCCL initialisation did not finish within {:g} s (--timeout): a rank is missing or the "
      "bootstrap network is blocked (NCCL_SOCKET_IFNAME)",
      plan.timeout_s);

  CollPrinter out(state.options.format, printer, state.options, state.argv);
  measure::CollectiveProgress progress;
  progress.on_setup = [&](const measure::CollectiveSetup& setup) { out.on_setup(setup, *processes.capture); };
  progress.on_started = [&](const std::vector<model::DeviceRecord>& devices) { out.on_started(devices); };
  progress.on_size = [&](const model::CollectiveSeries& s, const std::vector<model::CollectivePoint>& points) {
    out.on_size(s, points);
  };
  const measure::CollectiveRun result = measure::run_collectives(request, *processes.group, progress);
  // Another process may still wait in a collective that can no longer complete: no more MPI calls; the job ends
  // with MPI_Abort once this process reported (below).
  const bool mpi_failed = result.aborted && processes.mpi;
  if (mpi_failed) processes.mpi->abandon();
  const bool bandwidth_failed = out.print_nccl_tests_footer(result.series, processes.env, result.memory);
  if (!printer) {
    if (mpi_failed) {
      print_stderr_line(fmt::format("linkscope: error (rank {} on {}): timed out; ending the MPI job",
                                    processes.mpi->rank(), processes.mpi->host()));
      processes.capture->remove_files();
      processes.mpi->abort_job(to_int(ExitCode::kTimeout));
    }
    return to_int(result.status());
  }

  model::Run run = coll_run_document(state, processes, result, nccl);
  run.config.measured_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  out.print_text_footer(run);
  if (state.options.format == OutputFormat::kJson) write_stdout(model::run_text(run));
  if (!state.output_file.empty()) model::write_run_file(state.output_file, run);
  for (const auto& s : result.series) {
    for (const auto& p : s.points) {
      if (p.status == "timeout") {
        print_stderr_line(fmt::format("linkscope: error: {} {} B timed out: {}", coll::op_name(s.op), p.requested_bytes,
                                      p.reason.value_or("")));
      }
    }
  }
  const ExitCode status = result.status();
  const int code = to_int(status != ExitCode::kOk || !bandwidth_failed ? status : ExitCode::kThreshold);
  if (mpi_failed) {
    processes.capture->remove_files();
    processes.mpi->abort_job(code);
  }
  return code;
}

int run_coll(CollState& state) {
  const auto wall_start = std::chrono::steady_clock::now();
  if (state.as_nccl_tests) apply_nccl_tests_defaults(state);
  state.options.personality = state.as_nccl_tests;
  state.options.format = parse_format(state.format);
  Environment env = Environment::from_process();
  // alltoallv_perf reads its variables (and its matrix file) once, before anything runs.
  if (coll::parse_op(state.options.op) == coll::CollectiveOp::kAlltoAllv) {
    state.options.alltoallv = coll::alltoallv_traffic_from_env(env);
  }
  const auto launch = runtime::detect_launch(env);
  // nccl-tests splits only its MPI processes.
  if (launch.parallel()) state.options.split = coll::parse_split_rule(env);
  (void)coll::make_coll_plan(state.options);  // every usage check before CUDA is asked for the GPU count
  // Rank 0 writes the file (under mpirun/srun the others may run where that directory does not exist).
  if (!state.output_file.empty() && launch.world_rank == 0) check_output_path(state.output_file, "--output");
  // linkscope's own default drives every visible GPU from one process; nccl-tests' names and MPI ranks
  // keep nccl-tests' one GPU per process.
  if (!given(state, "-g") && !state.as_nccl_tests && !launch.parallel()) {
    state.options.gpus = std::max(1, platform::cuda_device_count_or_zero());
  }
  const coll::CollPlan plan = coll::make_coll_plan(state.options);
  // The rules that need only the rank count (alltoallv's matrix, hypercube's power of two), before any GPU is asked;
  // with a split the communicators' sizes are known once the processes meet.
  if (plan.split.kind == coll::SplitRule::Kind::kNone) {
    (void)coll::series_keys(plan, std::max(1, launch.world_size) * plan.gpus_per_process);
  }
  // Under nccl-tests' host timer NCCL's per-call log would be timed too (runtime/nccl_debug_capture.hpp).
  const auto detail = plan.clock == coll::TimingClock::kHostLoop ? runtime::CaptureDetail::kInitOnly
                                                                 : runtime::CaptureDetail::kInitAndCalls;
  CollProcesses processes = start_coll_processes(std::move(env), launch, detail);
  try {
    if (state.dry_run) return coll_dry_run(plan, state.argv, processes);
    return run_coll_processes(state, processes, plan, wall_start);
  } catch (const Error& e) {
    if (!processes.mpi) throw;
    // Under MPI one failing process would leave the others waiting in a collective: end the whole job.
    print_stderr_line(fmt::format("linkscope: error (rank {} on {}): {}", processes.mpi->rank(), processes.mpi->host(),
                                  e.what()));
    processes.capture->remove_files();
    processes.mpi->abort_job(to_int(e.code()));
  }
}

Command add_coll_command(CLI::App& parent, const std::vector<std::string>& argv) {
  auto state = std::make_shared<CollState>();
  state->argv = argv;
  auto& o = state->options;
  CLI::App* app = parent.add_subcommand(
      "coll", "NCCL collective benchmark: nccl-tests' flags and formulas, per-size median/min/max/CV from CUDA events, "
              "every size verified, NCCL's transports recorded");
  state->app = app;
  app->add_option("op", o.op, "all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv, gather, scatter, hypercube, "
                  "alltoallv")
      ->capture_default_str();
  app->add_option("-b,--minbytes", o.min_bytes, "smallest size (K/M/G = 1024^n)")->capture_default_str();
  app->add_option("-e,--maxbytes", o.max_bytes, "largest size")->capture_default_str();
  app->add_option("-i,--stepbytes", o.step_bytes, "additive step when -f is 1")->capture_default_str();
  app->add_option("-f,--stepfactor", o.step_factor, "multiplicative step")->capture_default_str();
  app->add_option("-t,--nthreads", o.threads, "threads per process (run as -g t*g from one thread)")->capture_default_str();
  app->add_option("-g,--ngpus", o.gpus,
                  "GPUs (ranks) driven by this process (default: all visible; 1 per process under MPI and as *_perf)");
  app->add_option("-w,--warmup_iters", o.warmup_iters, "untimed operations before each size")->capture_default_str();
  app->add_option("-n,--iters", o.iters, "fixed number of timed iterations (default: adaptive)");
  app->add_option("-m,--agg_iters", o.agg_iters, "operations per iteration, in one NCCL group")->capture_default_str();
  app->add_option("-N,--run_cycles", o.cycles, "repeat the whole sweep")->capture_default_str();
  app->add_option("-c,--check", o.check, "verify every size (0: off)")->capture_default_str();
  app->add_option("-d,--datatype", o.datatype, "int8 uint8 int32 uint32 int64 uint64 half float double bfloat16 f8e4m3 f8e5m2 all")
      ->capture_default_str();
  app->add_option("-o,--op", o.redop, "sum prod max min avg mulsum all")->capture_default_str();
  app->add_option("-r,--root", o.root, "root rank of rooted ops (-1 or all: every rank)")->capture_default_str();
  app->add_option("-G,--cudagraph", o.graph_launches, "capture iterations in CUDA graphs (with -n: number of launches)")
      ->capture_default_str();
  app->add_option("-C,--report_cputime", o.report_cputime, "nccl-tests format: print host enqueue time instead");
  app->add_option("-a,--average", o.average, "per batch, ranks' times -> 0 rank 0, 1 average, 2 min, 3 max (default 3)");
  app->add_option("-T,--timeout", o.timeout_s, "abort when the GPUs make no progress for this many seconds (0: never)")
      ->capture_default_str();
  app->add_option("--format", state->format, "text, json (Run document) or nccl-tests")
      ->check(CLI::IsMember({"text", "json", "nccl-tests"}))
      ->capture_default_str();
  app->add_option("--output", state->output_file, "also write the Run document (JSON) to this file")
      ->check(non_empty_path());
  app->add_option("--target-ci", o.target_ci, "adaptive sampling: stop when the median's 95% CI is within this fraction (0.01)");
  app->add_option("--max-time", o.max_time_s, "adaptive sampling: time budget per size in seconds (0.15)");
  app->add_flag("--in-place", o.in_place, "also measure in place (always on with --format nccl-tests)");
  app->add_flag("-q,--quiet", o.quiet, "no progress lines on stderr");
  app->add_flag("--dry-run", state->dry_run,
                "print what would run on which processes and GPUs (checks an MPI launch) without running NCCL");
  app->add_flag(coll::kAsNcclTestsFlag, state->as_nccl_tests, "nccl-tests' defaults and format")->group("");
  app->add_flag("--linkscope-stats", o.linkscope_stats,
                "as an nccl-tests name: time with linkscope's gated CUDA-event statistics instead of nccl-tests' host "
                "timer (coll always does)");
  const char* nccl_tests_group = "nccl-tests 2.19.6 flags (docs/collectives.md)";
  app->add_option("-p,--parallel_init", o.parallel_init, "1: communicators initialised concurrently")->group(nccl_tests_group);
  app->add_option("-z,--blocking", o.blocking, "host timer: 1 wait + barrier per op, 2 wait per op, 3 per iteration")
      ->group(nccl_tests_group);
  app->add_option("-y,--stream_null", o.stream_null, "1: the GPUs' NULL stream")->group(nccl_tests_group);
  app->add_option("-R,--local_register", o.local_register, "1 ncclCommRegister, 2 symmetric windows")->group(nccl_tests_group);
  app->add_option("-x,--cta_policy", o.cta_policy, "ncclConfig_t.CTAPolicy: 0 default, 1 efficiency, 2 zero")
      ->group(nccl_tests_group);
  app->add_option("-D,--device_implementation", o.device_impl, "device-API kernels instead of NCCL calls (needs -R 2; all_reduce, alltoall: 1, 2)")
      ->group(nccl_tests_group);
  app->add_option("-V,--device_cta_count", o.device_ctas, "CTAs of the device-API kernels (with -D)")->group(nccl_tests_group);
  app->add_option("-S,--report_timestamps", o.timestamps, "1: a time stamp per row")->group(nccl_tests_group);
  app->add_option("-M,--memory", o.memory_report, "1: GPU memory usage line")->group(nccl_tests_group);
  app->add_option("-u,--unalign", o.unalign, "start both buffers this many elements in")->group(nccl_tests_group);
  app->add_option("-I,--per_iter_timing", o.per_iter_timing, "1: CUDA events per iteration, i_* columns")
      ->group(nccl_tests_group);
  app->add_option("-K,--per_iter_skip", o.per_iter_skip, "-I summary skips the first K iterations")->group(nccl_tests_group);
  app->add_option("-J,--output_file", o.json_file, "nccl-tests' JSON document (FILE, else FILE.0, FILE.1 ...)")
      ->group(nccl_tests_group);

  Command command;
  command.app = app;
  command.run = [state] { return run_coll(*state); };
  return command;
}

const CommandRegistration kRegistration{40, &add_coll_command};

}  // namespace

}  // namespace linkscope::cli
