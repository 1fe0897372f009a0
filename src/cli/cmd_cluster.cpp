// `linkscope cluster`: the cross-host test under mpirun/srun. Every host's facts (grouped, differences named),
// NCCL sendrecv between one GPU of every pair of hosts (a host x host matrix), an all_reduce over every rank,
// and the slow host or NIC named.
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "cli/cluster_host_facts.hpp"
#include "cli/command.hpp"
#include "cli/findings_exit.hpp"
#include "cli/stop_signals.hpp"
#include "cli/topo_live.hpp"
#include "cluster/cross_host.hpp"
#include "cluster/host_comparison.hpp"
#include "cluster/host_identity.hpp"
#include "cluster/job_cross_host.hpp"
#include "cluster/job_isolation.hpp"
#include "cluster/job_session.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/file_io.hpp"
#include "core/nagios_status.hpp"
#include "core/seconds.hpp"
#include "core/size.hpp"
#include "core/sweep.hpp"
#include "core/text.hpp"
#include "core/terminal_text.hpp"
#include "diagnose/diagnose.hpp"
#include "discover/live_system.hpp"
#include "fleet/baseline.hpp"
#include "fleet/fleet_judge.hpp"
#include "fleet/machine_type.hpp"
#include "model/run.hpp"
#include "model/run_file.hpp"
#include "platform/mpi_session.hpp"
#include "report/fleet_section.hpp"
#include "report/cluster_tables.hpp"
#include "report/prometheus_report.hpp"
#include "report/soak_cycle.hpp"
#include "report/summary_text.hpp"
#include "runtime/launch_environment.hpp"
#include "runtime/nccl_debug_capture.hpp"

namespace linkscope::cli {

namespace {

struct ClusterOptions {
  std::string baseline_path;  // --baseline FILE: judge the pairs against a fleet baseline (src/fleet)
  std::string min_bytes = "1M";
  std::string max_bytes = "256M";
  double step_factor = 16;
  double max_time_s = 0.2;
  std::string schedule = "rounds";
  int peers = 3;
  std::uint64_t seed = 0;
  bool no_all_reduce = false;
  bool isolate = false;
  double expect_gbps = 0;
  bool expect_given = false;  // --expect-gbps was on the command line
  double timeout_s = 60;
  std::string format = "text";
  std::string output_file;
  std::string prometheus_file;  // --prometheus FILE.prom: the run as a node-exporter textfile (rank 0)
  bool quiet = false;
  std::string soak;       // --soak DURATION: repeat the facts and the measurements until it has passed
  FindingsExit exit;      // --fail-on, --exit-codes
  std::vector<std::string> argv;
};

std::atomic<int> g_cluster_signal{0};
extern "C" void cluster_soak_signal(int signal_number) { g_cluster_signal.store(signal_number); }

// Every host leader discovers its machine (no NCCL child: the cross-host tests run NCCL themselves) and rank 0
// compares the hosts. `mine` receives this leader's own discovery.
std::optional<cluster::HostsComparison> gather_host_facts(cluster::ClusterSession& session,
                                                          std::optional<TopoLiveResult>& mine) {
  std::optional<cluster::HostReport> report;
  if (session.leads_host()) {
    TopoLiveOptions options;
    options.ask_nccl = false;
    report = discover_host_report(session, options, "", mine);
  }
  return compare_gathered_hosts(session, report);
}

// Rank 0's run of one cycle before anything is measured: rank 0's facts (its machine type is the fleet's key) and the
// cluster's settings; complete_cycle_run adds the rest.
model::Run skeleton_run(const std::optional<TopoLiveResult>& mine, const ClusterOptions& options,
                        const cluster::CrossHostOptions& cross_options, const std::string& launcher) {
  model::Run run = mine ? discover::topo_live_run(mine->live, mine->check, mine->env, options.argv)
                        : model::make_run("cluster", options.argv);
  run.config.subcommand = "cluster";
  run.config.extra["cluster"] = {{"sizes_bytes", cross_options.sizes},     {"schedule", cross_options.schedule},
                                 {"max_time_s", cross_options.max_time_s}, {"target_ci", cross_options.target_ci},
                                 {"timeout_s", cross_options.timeout_s},   {"all_reduce", cross_options.all_reduce}};
  if (options.isolate && options.expect_given) run.config.extra["cluster"]["isolate_expect_gbps"] = options.expect_gbps;
  if (options.schedule == "gpu-to-rack") {
    run.config.extra["cluster"]["peers"] = options.peers;
    run.config.extra["cluster"]["seed"] = options.seed;
  }
  run.environment.launch = launcher;
  run.topology = model::TopologyView{};  // rank 0's model is not the cluster's; `system.hosts` holds each host
  return run;
}

// Why the cycle's measurements cannot stand as a cluster's result (printed as the error line), or "".
std::pair<std::string, int> unusable_cycle(const model::CrossHost& cross) {
  if (cross.isolation && !cross.isolation->expected_gbps) {
    return {"--isolate has nothing to judge the groups against: " + join(cross.isolation->notes, "; ") +
                "; give --expect-gbps GBPS or --baseline FILE built from `cluster` runs of this machine type",
            to_int(ExitCode::kUsage)};
  }
  if (cross.isolation && cross.isolation->runs.empty()) {
    std::vector<std::string> why = cross.notes;
    why.insert(why.end(), cross.isolation->notes.begin(), cross.isolation->notes.end());
    return {"--isolate could not run a collective: " + join(why, "; "), to_int(ExitCode::kDevice)};
  }
  if (cross.pairs.empty() && !cross.isolation) {
    return {"no pair of hosts could be measured: " + join(cross.notes, "; "), to_int(ExitCode::kDevice)};
  }
  return {"", 0};
}

// Rank 0 completes a cycle's run: every host's facts, the cross-host section and its errors, the fleet's judgement,
// the findings (a cluster run's: between hosts).
void complete_cycle_run(model::Run& run, const cluster::HostsComparison& hosts, const model::CrossHost& cross,
                        const fleet::Baseline* baseline, const std::string& baseline_name) {
  cluster::add_hosts_to_system(run.system, hosts);
  run.measurements.cross_host = cross;
  cluster::record_cross_host_errors(run, cross);
  if (baseline) run.fleet = fleet::judge_against_baseline(run, *baseline, baseline_name);
  diagnose::diagnose_into(run);
}

// Why a soak ends after cycle `index` (0-based), or "" to go on: the cycle could not measure, a rank was signalled
// (the run is then marked stopped: exit 130), or another cycle would end after the duration.
std::string soak_end(const model::Soak& soak, model::Run& run, bool cycle_failed, int signal_number, int index,
                     double elapsed_s) {
  if (cycle_failed) return fmt::format("stopped: soak cycle {} could not measure", index + 1);
  if (signal_number != 0) {
    run.config.stopped = fmt::format("interrupted ({}) after soak cycle {}",
                                     stop_signal_name(signal_number), index + 1);
    return *run.config.stopped;
  }
  return report::soak_duration_reached(soak, elapsed_s);
}

void print_cluster_run(const model::Run& run, const cluster::Roster& roster, const std::string& launcher,
                       const std::string& format) {
  if (format == "json") {
    std::fputs(model::run_text(run).c_str(), stdout);
  } else {
    write_text_stdout(fmt::format("linkscope cluster: {} host(s), {} rank(s) under MPI ({})\n\n{}\n{}",
                                  roster.hosts.size(), roster.world_size, launcher, report::render_hosts_text(run),
                                  report::render_cross_host_text(run)));
    if (run.fleet) write_text_stdout("\n" + report::render_fleet_text(*run.fleet));
    write_text_stdout(report::render_soak_text(run) + report::render_findings_text(run));
  }
  std::fflush(stdout);
}

int run_cluster(const ClusterOptions& options) {
  checked_seconds(options.max_time_s, "--max-time", ZeroSeconds::kRefused);
  checked_seconds(options.timeout_s, "--timeout", ZeroSeconds::kRefused);
  if (options.expect_given && !(std::isfinite(options.expect_gbps) && options.expect_gbps > 0)) {
    throw UsageError("--expect-gbps: expected a positive busbw in GB/s");
  }
  if (!options.isolate && options.expect_given) throw UsageError("--expect-gbps is for --isolate");
  const double soak_seconds = options.soak.empty() ? 0 : parse_duration(options.soak, "--soak");
  // Read before anything is measured: a bad baseline is a one-line error on every rank, not a lost job.
  std::optional<fleet::Baseline> baseline;
  if (!options.baseline_path.empty()) baseline = fleet::read_baseline_file(options.baseline_path);
  const Environment env = Environment::from_process();
  const auto launch = runtime::detect_launch(env);
  if (!launch.parallel()) {
    throw UsageError(
        "linkscope cluster measures between hosts: start it under mpirun or srun with one rank per GPU or per host, "
        "e.g. `mpirun -np 16 -npernode 8 linkscope cluster` (see docs/multi-node.md)");
  }
  runtime::refuse_parallel_launch_without_mpi(launch, platform::mpi_built_in());
  cluster::CrossHostOptions cross_options;
  cross_options.sizes = sweep_sizes({parse_size(options.min_bytes), parse_size(options.max_bytes), options.step_factor, 0});
  cross_options.max_time_s = options.max_time_s;
  cross_options.schedule = options.schedule;
  cross_options.peers = options.peers;
  cross_options.seed = options.seed;
  cross_options.all_reduce = !options.no_all_reduce;
  cross_options.timeout_s = options.timeout_s;
  cross_options.quiet = options.quiet;
  // NCCL reads its debug variables at its first call: set them before anything touches NCCL.
  runtime::NcclDebugCapture capture(env);
  capture.apply();

  const auto body = [&](cluster::ClusterSession& session) {
    const cluster::Roster& roster = session.roster();
    if (roster.hosts.size() < 2) {  // every rank sees the same roster: all stop here
      if (session.is_root()) {
        print_stderr_line(fmt::format(
            "linkscope: error: linkscope cluster needs ranks on two hosts or more; all {} ranks run on {} "
            "(to test one machine as several hosts, set {}=1 for every rank: docs/multi-node.md)",
            roster.world_size, roster.hosts.front().name, cluster::kHostPerRankVariable));
        return to_int(ExitCode::kUsage);
      }
      return 0;
    }
    // A soak ends between cycles on a signal to any rank; every rank keeps its handler until then.
    std::optional<ScopedStopSignals> signals;
    if (soak_seconds > 0) signals.emplace(cluster_soak_signal);
    g_cluster_signal.store(0);
    model::Soak soak;
    soak.requested_s = soak_seconds;
    const double begin = cluster::ClusterSession::now_s();
    model::Run run;
    int failed_code = 0;
    for (int index = 0;; ++index) {
      const double start = cluster::ClusterSession::now_s() - begin;
      if (soak_seconds > 0 && session.is_root()) {
        print_stderr_line(fmt::format("linkscope cluster: soak cycle {} at {:.0f} s of {:.0f} s", index + 1, start,
                                      soak_seconds));
      }
      std::optional<TopoLiveResult> mine;
      const auto hosts = gather_host_facts(session, mine);
      std::optional<model::Run> cycle;
      cluster::IsolationOptions isolation;
      if (options.expect_given) isolation.given = cluster::given_expectation(options.expect_gbps);
      if (session.is_root()) {
        cycle = skeleton_run(mine, options, cross_options, launch.launcher);
        cycle->config.host = session.my_host().name;
        // The libnccl rank 0's host loads: part of the machine type, as in a doctor run of that host.
        if (!cycle->environment.nccl_version && hosts) {
          cycle->environment.nccl_version = hosts->hosts.at(session.my_host_index()).nccl_version;
        }
        if (baseline) {
          isolation.baseline = &*baseline;
          isolation.baseline_name = options.baseline_path;
          isolation.machine_type = fleet::machine_type(*cycle);
        }
      }
      const auto cross = options.isolate ? cluster::isolate_slow_hosts(session, hosts ? &*hosts : nullptr,
                                                                       cross_options, isolation, capture)
                                         : cluster::measure_cross_host(session, hosts ? &*hosts : nullptr,
                                                                       cross_options, capture);
      std::string stop;  // rank 0: why no further cycle runs ("" to go on)
      if (session.is_root()) {
        complete_cycle_run(*cycle, *hosts, *cross, baseline ? &*baseline : nullptr, options.baseline_path);
        const auto [unusable, code] = unusable_cycle(*cross);
        if (!unusable.empty()) {
          print_stderr_line("linkscope: error: " + unusable);
          failed_code = code;
          stop = "failed";
        }
        if (soak_seconds > 0) {
          soak.cycles.push_back(
              report::summarize_soak_cycle(*cycle, index, start, cluster::ClusterSession::now_s() - begin - start));
        }
        run = std::move(*cycle);
      }
      if (soak_seconds > 0) {  // every rank's stop signal reaches rank 0, which decides for all
        const auto signals_seen = session.gather_from_all(std::to_string(g_cluster_signal.load()), "ending a soak cycle");
        int signal_number = 0;
        for (const auto& text : signals_seen) signal_number = std::max(signal_number, std::atoi(text.c_str()));
        if (session.is_root()) {
          soak.ended = soak_end(soak, run, !stop.empty(), signal_number, index, cluster::ClusterSession::now_s() - begin);
          stop = soak.ended;
          run.measurements.soak = soak;
          diagnose::diagnose_into(run);  // again: the soak's rules judge every cycle so far
        }
      }
      if (session.is_root()) {  // after every cycle: a kill leaves the last whole cycle on disk
        if (!options.output_file.empty()) model::write_run_file(options.output_file, run);
        if (!options.prometheus_file.empty()) write_file_atomically(options.prometheus_file, report::render_prometheus(run));
      }
      if (soak_seconds <= 0 || session.broadcast(stop, "deciding on another soak cycle").size() > 0) break;
    }
    capture.remove_files();
    if (!session.is_root()) return 0;

    print_cluster_run(run, roster, launch.launcher, options.format);
    if (failed_code != 0) return options.exit.nagios() ? to_int(NagiosStatus::kUnknown) : failed_code;
    // A measurement that failed (3), timed out (4) or came back wrong (5) outranks what the findings say, unless the
    // caller wants the Nagios state.
    const int measured = cluster::cross_host_exit_code(*run.measurements.cross_host);
    if (measured != 0 && !options.exit.nagios()) return measured;
    return findings_exit_code(run, options.exit);
  };
  return cluster::run_cluster_command(options.argv, options.timeout_s, cluster::fill_rank_device, body);
}

Command add_cluster_command(CLI::App& parent, const std::vector<std::string>& argv) {
  auto options = std::make_shared<ClusterOptions>();
  options->argv = argv;
  Command command;
  command.app = parent.add_subcommand(
      "cluster",
      "Across hosts, under mpirun/srun: every host's facts and how they differ, NCCL sendrecv between every pair of "
      "hosts (host x host matrix), an all_reduce over every rank, the slow host or NIC named");
  auto* app = command.app;
  app->add_option("-b,--minbytes", options->min_bytes, "smallest size (K/M/G = 1024^n)")->capture_default_str();
  app->add_option("-e,--maxbytes", options->max_bytes, "largest size: the matrix shows this one")->capture_default_str();
  app->add_option("-f,--stepfactor", options->step_factor, "multiplicative step")->capture_default_str();
  app->add_option("--max-time", options->max_time_s, "adaptive sampling: time budget per size in seconds")
      ->capture_default_str();
  app->add_option("--schedule", options->schedule,
                  "rounds: disjoint host pairs at once (N-1 rounds); serial: one pair at a time; gpu-to-rack: each "
                  "host against --peers random others, in rounds of disjoint pairs (linear in the hosts)")
      ->check(CLI::IsMember({"rounds", "serial", "gpu-to-rack"}))
      ->capture_default_str();
  app->add_option("--peers", options->peers, "gpu-to-rack: random peers per host")
      ->check(CLI::Range(1, 1 << 20))
      ->capture_default_str();
  app->add_option("--seed", options->seed, "gpu-to-rack: the random draw (the same seed, the same pairs)")
      ->capture_default_str();
  app->add_flag("--no-all-reduce", options->no_all_reduce, "skip the all_reduce over every rank");
  app->add_flag("--isolate", options->isolate,
                "instead of the pairs: an all_reduce over every host and, when it is slow or hangs, adaptive group "
                "testing (split, measure the halves at once, recurse) that names the slow and hung hosts");
  auto* expect = app->add_option("--expect-gbps", options->expect_gbps,
                  "with --isolate: the all_reduce busbw (GB/s) good hosts reach at the largest size; a group more "
                  "than 10% below it is slow (default: the --baseline's numbers, else the NICs' rate)");
  app->add_option("--soak", options->soak,
                  "repeat the hosts' facts and the measurements for DURATION (30m, 2h, 600) and report drift, steps "
                  "and link flaps over the cycles; --output and --prometheus are rewritten after every cycle")
      ->type_name("DURATION");
  app->add_option("-T,--timeout", options->timeout_s,
                  "seconds without progress (NCCL) or without an answer from another rank before the job ends")
      ->capture_default_str();
  app->add_option("--format", options->format, "text or json (Run document)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  app->add_option("--output", options->output_file, "also write the Run document (JSON) to this file (rank 0)")
      ->check(non_empty_path());
  app->add_option("--baseline", options->baseline_path,
                  "judge the host pairs against a fleet baseline (`linkscope baseline`): the Fleet section names the "
                  "pairs outside their machine type's spread")
      ->check(non_empty_path());
  app->add_option("--prometheus", options->prometheus_file,
                  "also write the run as a node-exporter textfile (FILE.prom), atomically (rank 0)")
      ->check(non_empty_path());
  add_findings_exit_options(*app, options->exit);
  app->add_flag("-q,--quiet", options->quiet, "no progress lines on stderr");
  command.run = [options, expect] {
    options->expect_given = expect->count() > 0;
    return run_with_exit_policy(options->exit, [&options] { return run_cluster(*options); });
  };
  return command;
}

const CommandRegistration kRegistration{45, &add_cluster_command};

}  // namespace

}  // namespace linkscope::cli
