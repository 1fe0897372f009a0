// linkscope doctor: evidence -> hypotheses -> findings -> one report directory (report.html, report.md, run.json,
// SVG charts) and a short summary on stdout. Sources: a live run (collect_live_run), a saved run (--from) or a
// topology file alone (--xml).
#include <cstdio>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "cli/doctor_collect.hpp"
#include "cli/model_version_option.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/seconds.hpp"
#include "diagnose/diagnose.hpp"
#include "diagnose/run_status.hpp"
#include "fleet/baseline.hpp"
#include "fleet/fleet_judge.hpp"
#include "core/file_io.hpp"
#include "core/terminal_text.hpp"
#include "model/run_file.hpp"
#include "report/prometheus_report.hpp"
#include "report/report_render.hpp"
#include "report/summary_text.hpp"
#include "runtime/launch_environment.hpp"

#include "topo/prediction_view.hpp"
#include "topo/topology_model.hpp"

namespace linkscope::cli {

namespace {

Environment doctor_environment(const DoctorOptions& options) {
  Environment env = Environment::from_process();
  for (const auto& assignment : options.env_assignments) {
    const auto [name, value] = parse_env_assignment(assignment);
    env.set(name, value);
  }
  return env;
}

model::Run run_from_topology_file(const DoctorOptions& options) {
  const Environment env = doctor_environment(options);
  model::Run run = model::make_run("doctor", options.argv);
  run.environment.variables = env.relevant();
  const topo::ModelledVersion version = offline_model_version(options.nccl_version);
  try {
    const topo::TopologyModel model = topo::load_topology_file(options.xml_path, env, version);
    run.topology = topo::topology_view(model);
    run.topology.prediction = topo::predict_topology(model, env);
  } catch (const topo::TopologyRefused& refused) {
    // A file NCCL itself would stop on is the finding, not a usage error.
    run.topology.present = true;
    run.topology.source = options.xml_path;
    run.topology.nccl_version = version.requested.text();
    run.topology.nccl_version_modelled = version.modelled.text();
    run.topology.nccl_version_from = version.requested_from;
    run.topology.nccl_version_note = version.note;
    run.topology.refused = refused.what();
  }
  return run;
}

// The directory the report goes to must be creatable before anything is measured.
void check_report_directory(const std::string& directory) {
  try {
    create_output_directory(directory);
  } catch (const InputError& e) {
    throw UsageError(fmt::format("--output {}", e.what()));
  }
}

void write_checkpoint(const std::string& directory, const model::Run& run) {
  try {
    model::write_run_file((std::filesystem::path(directory) / "run.json").string(), run);
  } catch (const Error& e) {
    print_stderr_line(std::string("linkscope doctor: warning: could not save the run so far: ") + e.what());
  }
}

}  // namespace

void write_doctor_prometheus(const DoctorOptions& options, const model::Run& run,
                             const std::vector<std::string>& inputs) {
  if (options.prometheus_path.empty()) return;
  write_file_atomically(options.prometheus_path, report::render_prometheus(run), inputs);
}

namespace {

int run_doctor(const DoctorOptions& options) {
  checked_seconds(options.mpi_timeout_s, "--timeout", ZeroSeconds::kRefused);
  const int sources = !options.from_path.empty() + !options.xml_path.empty() + !options.capture_path.empty();
  if (sources > 1) throw UsageError("doctor: use one of --from RUN.json, --xml FILE and --capture FILE");
  if (sources == 1 && options.profile != "default") {
    throw UsageError("doctor: --quick and --full choose what a live run measures; --from, --xml and --capture "
                     "measure nothing");
  }
  if (!options.nccl_version.empty() && options.xml_path.empty()) {
    throw UsageError("doctor: --nccl-version models a topology file (--xml); a live run models the libnccl it loads "
                     "(LINKSCOPE_NCCL_LIBRARY chooses it) and a saved run keeps the version it modelled");
  }
  if (!options.from_path.empty() && !options.env_assignments.empty()) {
    throw UsageError("doctor: --env applies to a live run or --xml, not to a saved run (--from)");
  }
  const double soak_seconds = options.soak.empty() ? 0 : parse_duration(options.soak, "--soak");
  if (soak_seconds > 0 && sources == 1) {
    throw UsageError("doctor: --soak repeats a live run; --from, --xml and --capture measure nothing");
  }
  const auto launch = runtime::detect_launch(Environment::from_process());
  if (soak_seconds > 0 && launch.parallel()) {
    throw UsageError("doctor: --soak runs on one host; under mpirun/srun run `linkscope doctor --soak` per host");
  }
  if (!options.baseline_path.empty() && !options.xml_path.empty()) {
    throw UsageError("doctor: --baseline judges measured numbers; a topology file (--xml) has none");
  }
  // Read before anything is measured: a bad baseline is a one-line error, not a lost run.
  std::optional<fleet::Baseline> baseline;
  if (!options.baseline_path.empty()) baseline = fleet::read_baseline_file(options.baseline_path);
  const auto judge = [&](model::Run& run) {
    if (baseline) run.fleet = fleet::judge_against_baseline(run, *baseline, options.baseline_path);
  };
  if (!options.prometheus_path.empty() && !launch.parallel()) {
    check_output_path(options.prometheus_path, "--prometheus");  // before anything is measured
  }
  if (launch.parallel()) {
    // A saved run or a topology file is read by rank 0 alone; the other ranks have nothing to do (no MPI).
    if (sources == 1) {
      if (launch.world_rank != 0) return 0;
    } else {
      return run_doctor_cluster(options, baseline ? &*baseline : nullptr);
    }
  }
  // Progress goes to stderr only once a step succeeded, so a failure stays a single error line.
  model::Run run;
  std::string source;
  std::vector<std::string> inputs;
  if (!options.from_path.empty()) {
    run = model::read_run_file(options.from_path);
    judge(run);
    diagnose::diagnose_into(run, false);  // keep the run's predictions, judge them again, run every rule
    source = "the saved run " + options.from_path;
    inputs.push_back(options.from_path);
  } else if (!options.capture_path.empty()) {
    check_report_directory(options.output_dir);
    run = collect_captured_run(options);
    judge(run);
    diagnose::diagnose_into(run, false);
    source = "the capture " + options.capture_path + " (its facts; nothing measured)";
    inputs.push_back(options.capture_path);
  } else if (!options.xml_path.empty()) {
    run = run_from_topology_file(options);
    diagnose::diagnose_into(run, true);
    source = options.xml_path + " (topology only, nothing measured)";
    inputs.push_back(options.xml_path);
  } else if (soak_seconds > 0) {
    // The report directory (and the textfile) is rewritten after every cycle: a kill leaves the last whole cycle.
    check_report_directory(options.output_dir);
    run = run_soak(options, soak_seconds, [&options](const model::Run& cycle) {
      report::write_report_directory(options.output_dir, cycle, {});
      write_doctor_prometheus(options, cycle, {});
    });
    if (baseline) {  // the last cycle against the fleet (its soak summary is judged by the soak's own rules)
      judge(run);
      diagnose::diagnose_into(run, false);
    }
    source = fmt::format("this machine over {} soak cycles", run.measurements.soak->cycles.size());
  } else {
    // The run so far is on disk after every step: a crash or a kill leaves the last complete state.
    check_report_directory(options.output_dir);
    DoctorOptions live = options;
    live.checkpoint = [&options](const model::Run& partial) { write_checkpoint(options.output_dir, partial); };
    run = collect_live_run(live);
    judge(run);
    diagnose::diagnose_into(run, false);
    source = "this machine";
  }
  const auto written = report::write_report_directory(options.output_dir, run, inputs);
  write_doctor_prometheus(options, run, inputs);
  // The summary first: when standard output cannot be written, the error is the only line on stderr.
  if (options.format == "json") {
    write_stdout(model::run_text(run));
  } else {
    write_text_stdout(report::render_summary_text(run));
  }
  print_stderr_line(fmt::format("linkscope doctor: diagnosed {}; wrote {} files to {} (open {}/report.html)", source,
                                written.size(), options.output_dir, options.output_dir));
  return findings_exit_code(run, options.exit);
}

Command add_doctor_command(CLI::App& parent, const std::vector<std::string>& argv) {
  auto options = std::make_shared<DoctorOptions>();
  options->argv = argv;
  Command command;
  command.app = parent.add_subcommand(
      "doctor", "Diagnose the machine: hypotheses, findings and one report directory (report.html, report.md, run.json)");
  command.app->add_option("--from", options->from_path, "re-diagnose a saved run (RUN.json) instead of measuring")
      ->check(non_empty_path());
  command.app->add_option("--xml", options->xml_path,
                          "diagnose an NCCL topology XML alone (no measurement): missing or slow links, PCIe")
      ->check(non_empty_path());
  command.app->add_option("--capture", options->capture_path,
                          "diagnose a captured machine (`linkscope capture -o FILE` there): the same facts, model "
                          "and findings as on that machine, nothing measured")
      ->check(non_empty_path());
  command.app->add_option("--nccl-version", options->nccl_version, kNcclVersionOptionHelp)->type_name("X.Y.Z");
  command.app->add_option("--output,-o", options->output_dir, "report directory")
      ->check(non_empty_path())
      ->capture_default_str();
  command.app->add_option("--format", options->format, "stdout: text summary or the json Run document")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  auto* quick = command.app->add_flag_callback("--quick", [options] { options->profile = "quick"; },
                                               "live run: the short measurement profile");
  auto* full = command.app->add_flag_callback("--full", [options] { options->profile = "full"; },
                                              "live run: every pair, size and path (slow)");
  quick->excludes(full);
  command.app->add_option("--env", options->env_assignments,
                          "NAME=VALUE: model NCCL as if this variable were set (repeatable)");
  add_findings_exit_options(*command.app, options->exit);
  command.app->add_option("--soak", options->soak,
                          "repeat the live steps for DURATION (30m, 2h, 600) and report drift, steps and link flaps "
                          "over the cycles; the report is rewritten after every cycle")
      ->type_name("DURATION");
  command.app->add_option("--prometheus", options->prometheus_path,
                          "also write the run as a node-exporter textfile (FILE.prom), atomically")
      ->check(non_empty_path());
  command.app->add_option("--baseline", options->baseline_path,
                          "judge the run against a fleet baseline (`linkscope baseline`): the numbers outside its "
                          "machine type's spread, in the findings and the report's Fleet section")
      ->check(non_empty_path());
  command.app->add_option("--timeout", options->mpi_timeout_s,
                          "under mpirun/srun: seconds rank 0 waits for another rank (and NCCL for progress) between hosts")
      ->capture_default_str();
  command.app->add_flag("--cross-host-only", options->cross_host_only,
                        "under mpirun/srun: hosts do not measure themselves; facts and the cross-host tests only");
  command.run = [options] {
    return run_with_exit_policy(options->exit, [&options] { return run_doctor(*options); });
  };
  return command;
}

const CommandRegistration kRegistration{5, &add_doctor_command};

}  // namespace

}  // namespace linkscope::cli
