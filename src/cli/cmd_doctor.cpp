// linkscope doctor: evidence -> hypotheses -> findings -> one report directory (report.html, report.md, run.json,
// SVG charts) and a short summary on stdout. Sources: a live run (collect_live_run), a saved run (--from) or a
// topology file alone (--xml).
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "cli/doctor_collect.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "diagnose/diagnose.hpp"
#include "core/file_io.hpp"
#include "model/run_file.hpp"
#include "report/report_render.hpp"
#include "report/summary_text.hpp"
#include "runtime/launch_environment.hpp"

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
  const topo::TopologyModel model = topo::load_topology_file(options.xml_path, env);
  model::Run run = model::make_run("doctor", options.argv);
  run.environment.variables = env.relevant();
  run.topology = topo::topology_view(model);
  return run;
}

}  // namespace

int doctor_exit_code(const model::Run& run, const std::string& fail_on) {
  if (fail_on == "none") return 0;
  const model::Severity limit = fail_on == "error" ? model::Severity::kError : model::Severity::kWarning;
  for (const auto& finding : run.findings) {
    if (finding.severity >= limit) return to_int(ExitCode::kThreshold);
  }
  return 0;
}

namespace {

int run_doctor(const DoctorOptions& options) {
  if (!options.from_path.empty() && !options.xml_path.empty()) {
    throw UsageError("doctor: use --from RUN.json or --xml FILE, not both");
  }
  if (!options.from_path.empty() && !options.env_assignments.empty()) {
    throw UsageError("doctor: --env applies to a live run or --xml, not to a saved run (--from)");
  }
  const auto launch = runtime::detect_launch(Environment::from_process());
  if (launch.parallel()) {
    // A saved run or a topology file is read by rank 0 alone; the other ranks have nothing to do (no MPI).
    if (!options.from_path.empty() || !options.xml_path.empty()) {
      if (launch.world_rank != 0) return 0;
    } else {
      return run_doctor_cluster(options);
    }
  }
  // Progress goes to stderr only once a step succeeded, so a failure stays a single error line.
  model::Run run;
  std::string source;
  std::vector<std::string> inputs;
  if (!options.from_path.empty()) {
    run = model::read_run_file(options.from_path);
    diagnose::diagnose_into(run, false);  // keep the run's predictions, judge them again, run every rule
    source = "the saved run " + options.from_path;
    inputs.push_back(options.from_path);
  } else if (!options.xml_path.empty()) {
    run = run_from_topology_file(options);
    diagnose::diagnose_into(run, true);
    source = options.xml_path + " (topology only, nothing measured)";
    inputs.push_back(options.xml_path);
  } else {
    run = collect_live_run(options);
    diagnose::diagnose_into(run, false);
    source = "this machine";
  }
  const auto written = report::write_report_directory(options.output_dir, run, inputs);
  std::fprintf(stderr, "linkscope doctor: diagnosed %s; wrote %zu files to %s (open %s/report.html)\n",
               source.c_str(), written.size(), options.output_dir.c_str(), options.output_dir.c_str());
  write_stdout(options.format == "json" ? model::run_text(run) : report::render_summary_text(run));
  return doctor_exit_code(run, options.fail_on);
}

Command add_doctor_command(CLI::App& parent, const std::vector<std::string>& argv) {
  auto options = std::make_shared<DoctorOptions>();
  options->argv = argv;
  Command command;
  command.app = parent.add_subcommand(
      "doctor", "Diagnose the machine: hypotheses, findings and one report directory (report.html, report.md, run.json)");
  command.app->add_option("--from", options->from_path, "re-diagnose a saved run (RUN.json) instead of measuring");
  command.app->add_option("--xml", options->xml_path,
                          "diagnose an NCCL topology XML alone (no measurement): missing or slow links, PCIe");
  command.app->add_option("--output,-o", options->output_dir, "report directory")->capture_default_str();
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
  command.app->add_option("--fail-on", options->fail_on, "exit 6 when a finding has this severity or worse")
      ->check(CLI::IsMember({"none", "warning", "error"}))
      ->capture_default_str();
  command.app->add_option("--timeout", options->mpi_timeout_s,
                          "under mpirun/srun: seconds rank 0 waits for another rank (and NCCL for progress) between hosts")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  command.app->add_flag("--cross-host-only", options->cross_host_only,
                        "under mpirun/srun: hosts do not measure themselves; facts and the cross-host tests only");
  command.run = [options] { return run_doctor(*options); };
  return command;
}

const CommandRegistration kRegistration{5, &add_doctor_command};

}  // namespace

}  // namespace linkscope::cli
