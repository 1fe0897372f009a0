// `linkscope doctor` under mpirun/srun: each host's leader runs the live doctor on its own host (in its own
// child processes, as a single-host doctor does), rank 0 gathers every host's diagnosed run, then all ranks run
// the cross-host tests, and rank 0 writes one report for the cluster: its own host's sections, a section per
// host (facts, differences, findings) and the cross-host matrix. Every host's whole run is kept beside it.
#include <cstdio>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "cli/doctor_collect.hpp"
#include "cli/doctor_profile.hpp"
#include "cli/topo_live.hpp"
#include "cluster/cross_host.hpp"
#include "cluster/host_comparison.hpp"
#include "cluster/host_report.hpp"
#include "cluster/job_cross_host.hpp"
#include "cluster/job_session.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/size.hpp"
#include "core/sweep.hpp"
#include "core/terminal_text.hpp"
#include "diagnose/diagnose.hpp"
#include "discover/live_system.hpp"
#include "fleet/fleet_judge.hpp"
#include "model/json_read.hpp"
#include "model/run.hpp"
#include "model/run_file.hpp"
#include "platform/mpi_session.hpp"
#include "report/json_report.hpp"
#include "report/report_format.hpp"
#include "report/report_render.hpp"
#include "report/summary_text.hpp"
#include "runtime/launch_environment.hpp"
#include "runtime/nccl_debug_capture.hpp"

namespace linkscope::cli {

namespace {

using nlohmann::json;

// The cross-host sizes and sampling budget of each doctor profile.
cluster::CrossHostOptions cross_host_options(const DoctorOptions& options) {
  cluster::CrossHostOptions cross;
  SweepSpec sweep{parse_size("1M"), parse_size("256M"), 16, 0};
  cross.max_time_s = 0.2;
  if (options.profile == "quick") {
    sweep = {parse_size("4M"), parse_size("64M"), 4, 0};
    cross.max_time_s = 0.1;
  } else if (options.profile == "full") {
    sweep = {parse_size("1M"), parse_size("1G"), 4, 0};
    cross.max_time_s = 0.3;
  }
  cross.sizes = sweep_sizes(sweep);
  cross.timeout_s = options.mpi_timeout_s;
  return cross;
}

// This host's own doctor run (diagnosed), or its facts alone when it cannot measure (no usable GPU): what the
// leader sends rank 0. `run` is set when there is a run.
json examine_host(const cluster::ClusterSession& session, const DoctorOptions& options, std::optional<model::Run>& run) {
  cluster::HostReport host = cluster::host_report_for(session.roster(), session.my_host_index());
  cluster::fill_nccl_version(host);
  try {
    model::Run mine = collect_live_run(options);
    mine.config.host = host.name;  // the host's name in the job (LINKSCOPE_HOST_NAME, -rankN), as the report says it
    diagnose::diagnose_into(mine);
    host.system = std::make_shared<const model::System>(mine.system);
    run = std::move(mine);
  } catch (const Error& e) {
    host.error = e.what();
    try {  // the facts still tell rank 0 how this host differs
      TopoLiveOptions facts;
      facts.ask_nccl = false;
      const TopoLiveResult found = discover_topo_live(facts, "");
      host.system = std::make_shared<const model::System>(discover::live_system(found.live, found.check));
    } catch (const Error&) {
    }
  }
  return {{"host", cluster::host_report_to_json(host)}, {"run", run ? model::to_json(*run) : json(nullptr)}};
}

std::string host_file(const std::string& host) { return "host-" + report::slug(host) + ".json"; }

// Each host's own diagnosis next to its facts in `system.hosts`, and its whole run as a file of the report.
void add_host_runs(model::Run& cluster_run, const std::vector<std::optional<model::Run>>& runs) {
  auto& hosts = cluster_run.system.hosts;
  for (std::size_t i = 0; i < hosts.size() && i < runs.size(); ++i) {
    if (!runs[i]) continue;  // it could not be examined: no findings
    model::Host& host = hosts[i];
    host.findings = runs[i]->findings;
    for (const auto& e : runs[i]->errors) host.run_errors.push_back(e.where + ": " + e.message);
    for (const auto& h : runs[i]->hypotheses) host.hypotheses[h.id] = std::string(model::verdict_name(h.verdict));
    host.run_file = host_file(host.name);
  }
}

}  // namespace

int run_doctor_cluster(const DoctorOptions& options, const fleet::Baseline* baseline) {
  const Environment env = Environment::from_process();
  const auto launch = runtime::detect_launch(env);
  runtime::refuse_parallel_launch_without_mpi(launch, platform::mpi_built_in());
  const DoctorProfile profile = doctor_profile(options.profile);  // a bad profile is refused before MPI starts
  const cluster::CrossHostOptions cross = cross_host_options(options);
  DoctorOptions local = options;
  local.child_unset_env = runtime::launch_variable_names();
  // A host that shows no sign of life for one step's limit (doctor_live's 900 s per child) is named.
  const double idle_s = 900 + options.mpi_timeout_s;
  const int steps = 3 + static_cast<int>(profile.collectives.size()) + (profile.p2p_bidirectional ? 1 : 0);

  const auto body = [&](cluster::ClusterSession& session) {
    const cluster::Roster& roster = session.roster();
    session.barrier("starting each host's own measurements");
    const double phase_start = cluster::ClusterSession::now_s();
    std::optional<model::Run> my_run;
    std::string report_text;
    if (session.leads_host()) {
      if (!session.is_root()) local.on_step_done = [&](const std::string& step) { session.send_progress(phase_start, step); };
      if (session.is_root()) {
        std::fprintf(stderr, "linkscope doctor: %zu host(s), %d rank(s) under MPI; every host examines itself first\n",
                     roster.hosts.size(), roster.world_size);
      }
      report_text = examine_host(session, local, my_run).dump();
    }
    const auto texts = session.gather_from_leaders_with_progress(report_text, "collecting every host's own diagnosis",
                                                                 idle_s, phase_start);
    // Ranks that are not leaders waited all along; the leaders are done now.
    session.barrier("waiting for every host's own measurements", steps * 900.0);

    std::optional<cluster::HostsComparison> hosts;
    std::vector<std::optional<model::Run>> host_runs;
    if (session.is_root()) {
      std::vector<cluster::HostReport> reports;
      for (const auto& text : texts) {
        const json parsed = json::parse(text);
        reports.push_back(cluster::host_report_from_json(model::JsonReader::root(parsed["host"], "a host's report")));
        host_runs.push_back(parsed["run"].is_null() ? std::nullopt
                                                    : std::optional<model::Run>(model::run_from_json(parsed["run"], "a host's run")));
      }
      hosts = cluster::compare_hosts(reports);
    }

    // NCCL's log is recorded from here on (the measuring children above had their own).
    runtime::NcclDebugCapture capture(env);
    capture.apply();
    const auto cross_host = cluster::measure_cross_host(session, hosts ? &*hosts : nullptr, cross, capture);
    capture.remove_files();
    if (!session.is_root()) return 0;

    model::Run run = my_run ? *my_run : model::make_run("doctor", options.argv);
    if (!my_run && hosts->hosts.front().system) run.system = *hosts->hosts.front().system;  // facts, no run
    run.config.subcommand = "doctor";
    run.config.host = session.my_host().name;
    run.config.profile = options.profile;
    run.config.extra["cluster"] = {{"hosts", roster.hosts.size()},       {"ranks", roster.world_size},
                                   {"sizes_bytes", cross.sizes},         {"max_time_s", cross.max_time_s},
                                   {"timeout_s", cross.timeout_s},       {"cross_host_only", options.cross_host_only}};
    run.environment.launch = launch.launcher;
    if (baseline) {  // each host against its machine type: its own findings name what is outside
      for (auto& host_run : host_runs) {
        if (!host_run) continue;
        host_run->fleet = fleet::judge_against_baseline(*host_run, *baseline, options.baseline_path);
        diagnose::diagnose_into(*host_run);
      }
    }
    cluster::add_hosts_to_system(run.system, *hosts);
    add_host_runs(run, host_runs);
    run.measurements.cross_host = *cross_host;
    cluster::record_cross_host_errors(run, *cross_host);
    std::vector<std::string> unexamined;
    for (const auto& host : hosts->hosts) {
      if (host.error.empty()) continue;
      unexamined.push_back(host.name + ": " + host.error);
      run.record_error("host " + host.name, host.error);
    }
    // Rank 0's own numbers and the pairs between hosts, in the report's Fleet section.
    if (baseline) run.fleet = fleet::judge_against_baseline(run, *baseline, options.baseline_path);
    diagnose::diagnose_into(run);  // this host's hypotheses judged again, every rule (the cluster's too)

    // Every host's run is a file of the report's set: replaced with it, removed with it when that host is gone.
    std::vector<report::ReportFile> host_files;
    for (std::size_t i = 0; i < host_runs.size(); ++i) {
      if (host_runs[i]) host_files.push_back({host_file(hosts->hosts[i].name), model::run_text(*host_runs[i])});
    }
    const auto written = report::write_report_directory(options.output_dir, run, {}, host_files);
    write_doctor_prometheus(options, run);
    print_stderr_line(fmt::format("linkscope doctor: diagnosed {} host(s); wrote {} files to {} (open {}/report.html)",
                                  roster.hosts.size(), written.size(), options.output_dir, options.output_dir));
    const std::string output =
        options.format == "json" ? report::render_json(run) : visible_controls(report::render_summary_text(run));
    std::fwrite(output.data(), 1, output.size(), stdout);
    std::fflush(stdout);
    if (!unexamined.empty()) {
      std::string message;
      for (const auto& line : unexamined) message += (message.empty() ? "" : "; ") + line;
      print_stderr_line("linkscope: error: not every host could be examined: " + message);
      if (!options.exit.nagios()) return to_int(ExitCode::kDevice);  // nagios: UNKNOWN, or a worse state
    }
    return findings_exit_code(run, options.exit);
  };
  return cluster::run_cluster_command(options.argv, options.mpi_timeout_s, cluster::fill_rank_device, body);
}

}  // namespace linkscope::cli
