// `linkscope cluster`: the cross-host test under mpirun/srun. Every host's facts (grouped, differences named),
// NCCL sendrecv between one GPU of every pair of hosts (a host x host matrix), an all_reduce over every rank,
// and the slow host or NIC named.
#include <cstdio>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "cli/cluster_measure.hpp"
#include "cli/cluster_session.hpp"
#include "cli/command.hpp"
#include "cli/topo_live.hpp"
#include "cluster/host_comparison.hpp"
#include "cluster/host_identity.hpp"
#include "cluster/host_report.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/run.hpp"
#include "core/size.hpp"
#include "core/sweep.hpp"
#include "discover/live_json.hpp"
#include "platform/mpi_session.hpp"
#include "report/cluster_tables.hpp"
#include "runtime/launch_environment.hpp"
#include "runtime/nccl_debug_capture.hpp"

namespace linkscope::cli {

namespace {

struct ClusterOptions {
  std::string min_bytes = "1M";
  std::string max_bytes = "256M";
  double step_factor = 16;
  double max_time_s = 0.2;
  std::string schedule = "rounds";
  bool no_all_reduce = false;
  double timeout_s = 60;
  std::string format = "text";
  std::string output_file;
  bool quiet = false;
  std::vector<std::string> argv;
};

// Every host leader discovers its machine (no NCCL child: the cross-host tests run NCCL themselves) and rank 0
// compares the hosts. `mine` receives this leader's own discovery.
std::optional<cluster::HostsComparison> gather_host_facts(ClusterSession& session, std::optional<TopoLiveResult>& mine) {
  std::string report_text;
  if (session.leads_host()) {
    cluster::HostReport report = cluster::host_report_for(session.roster(), session.my_host_index());
    fill_nccl_version(report);
    try {
      TopoLiveOptions options;
      options.ask_nccl = false;
      mine = discover_topo_live(options, "");
      report.system = discover::live_discovery_to_json(mine->live, mine->check);
    } catch (const Error& e) {
      report.error = e.what();
    }
    report_text = cluster::host_report_to_json(report).dump();
  }
  const auto texts = session.gather_from_leaders(report_text, "collecting every host's hardware facts");
  if (!session.is_root()) return std::nullopt;
  std::vector<cluster::HostReport> reports;
  for (const auto& text : texts) reports.push_back(cluster::host_report_from_json(nlohmann::json::parse(text)));
  return cluster::compare_hosts(reports);
}

int run_cluster(const ClusterOptions& options) {
  const Environment env = Environment::from_process();
  const auto launch = runtime::detect_launch(env);
  if (!launch.parallel()) {
    throw UsageError(
        "linkscope cluster measures between hosts: start it under mpirun or srun with one rank per GPU or per host, "
        "e.g. `mpirun -np 16 -npernode 8 linkscope cluster` (see docs/multi-node.md)");
  }
  runtime::refuse_parallel_launch_without_mpi(launch, platform::mpi_built_in());
  CrossHostOptions cross;
  cross.sizes = sweep_sizes({parse_size(options.min_bytes), parse_size(options.max_bytes), options.step_factor, 0});
  cross.max_time_s = options.max_time_s;
  cross.schedule = options.schedule;
  cross.all_reduce = !options.no_all_reduce;
  cross.timeout_s = options.timeout_s;
  cross.quiet = options.quiet;
  // NCCL reads its debug variables at its first call: set them before anything touches NCCL.
  runtime::NcclDebugCapture capture(env);
  capture.apply();

  return run_cluster_command(options.argv, options.timeout_s, fill_rank_device, [&](ClusterSession& session) {
    const cluster::Roster& roster = session.roster();
    if (roster.hosts.size() < 2) {  // every rank sees the same roster: all stop here
      if (session.is_root()) {
        std::fprintf(stderr,
                     "linkscope: error: linkscope cluster needs ranks on two hosts or more; all %d ranks run on %s "
                     "(to test one machine as several hosts, set %s=1 for every rank: docs/multi-node.md)\n",
                     roster.world_size, roster.hosts.front().name.c_str(), cluster::kHostPerRankVariable);
        return to_int(ExitCode::kUsage);
      }
      return 0;
    }
    std::optional<TopoLiveResult> mine;
    const auto hosts = gather_host_facts(session, mine);
    const auto outcome = measure_cross_host(session, hosts ? &*hosts : nullptr, cross, capture);
    capture.remove_files();
    if (!session.is_root()) return 0;

    RunDocument run = mine ? discover::topo_live_run(mine->live, mine->check, mine->env, options.argv)
                           : make_run("cluster", options.argv);
    run.config["subcommand"] = "cluster";
    run.config["host"] = session.my_host().name;
    run.config["cluster"] = {{"sizes_bytes", cross.sizes},       {"schedule", cross.schedule},
                             {"max_time_s", cross.max_time_s},   {"target_ci", cross.target_ci},
                             {"timeout_s", cross.timeout_s},     {"all_reduce", cross.all_reduce}};
    run.environment["launch"] = launch.launcher;
    run.model = nlohmann::json::object();  // rank 0's model is not the cluster's; `system.hosts` holds each host
    cluster::add_hosts_to_system(run.system, *hosts);
    run.measurements["cross_host"] = cluster::cross_host_to_json(outcome->result, outcome->slow);
    record_cross_host_errors(run, outcome->result);

    if (options.format == "json") {
      fmt::print("{}\n", run_to_json(run).dump(2));
    } else {
      fmt::print("linkscope cluster: {} host(s), {} rank(s) under MPI ({})\n\n", session.roster().hosts.size(),
                 session.roster().world_size, launch.launcher);
      fmt::print("{}\n{}", report::render_hosts_text(run), report::render_cross_host_text(run));
    }
    std::fflush(stdout);
    if (!options.output_file.empty()) write_run_file(options.output_file, run);
    if (outcome->result.pairs.empty()) {
      std::string why;
      for (const auto& note : outcome->result.notes) why += (why.empty() ? "" : "; ") + note;
      std::fprintf(stderr, "linkscope: error: no pair of hosts could be measured: %s\n", why.c_str());
      return to_int(ExitCode::kDevice);
    }
    return cross_host_exit_code(outcome->result);
  });
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
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app->add_option("--schedule", options->schedule,
                  "rounds: disjoint host pairs at once (N-1 rounds); serial: one pair at a time")
      ->check(CLI::IsMember({"rounds", "serial"}))
      ->capture_default_str();
  app->add_flag("--no-all-reduce", options->no_all_reduce, "skip the all_reduce over every rank");
  app->add_option("-T,--timeout", options->timeout_s,
                  "seconds without progress (NCCL) or without an answer from another rank before the job ends")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  app->add_option("--format", options->format, "text or json (Run document)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  app->add_option("--output", options->output_file, "also write the Run document (JSON) to this file (rank 0)");
  app->add_flag("-q,--quiet", options->quiet, "no progress lines on stderr");
  command.run = [options] { return run_cluster(*options); };
  return command;
}

const CommandRegistration kRegistration{45, &add_cluster_command};

}  // namespace

}  // namespace linkscope::cli
