// `linkscope topo`: NCCL's topology model, of a topology XML (--xml FILE, offline) or of this machine
// (live: sysfs, NVML and CUDA facts, the NCCL topology XML synthesized from them, and NCCL's own view).
#include <sys/stat.h>

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/model_version_option.hpp"
#include "cli/topo_live.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/seconds.hpp"
#include "core/file_io.hpp"
#include "core/terminal_text.hpp"
#include "model/run_file.hpp"
#include "platform/mpi_session.hpp"
#include "plan/collective_spec.hpp"
#include "runtime/launch_environment.hpp"
#include "topo/communicator_model.hpp"
#include "topo/prediction_text.hpp"
#include "topo/prediction_view.hpp"
#include "topo/search_log_printer.hpp"
#include "topo/topology_model.hpp"

namespace linkscope::cli {

struct TopoOptions {
  std::string xml_path;
  std::string format = "text";            // text | json | nccl-log
  std::vector<std::string> env_assignments;  // --env NAME=VALUE, applied over the process environment
  std::string nccl_version;               // --nccl-version X.Y.Z: the NCCL to model (default: the newest modelled)
  bool predict = false;                   // --predict [op]: NCCL's tuner choice per size, as a table
  std::string predict_op;                 // empty: every collective NCCL tunes
  std::string capture_path;               // --capture FILE: a captured machine, read like the live one
  // Live mode only
  std::string sysfs_root;
  std::string dump_xml;
  bool no_nccl = false;
  double mpi_timeout_s = 60;
};

namespace {

// The collectives `--predict [op]` asks about, in nccl-tests' order; every one NCCL's tuner covers without an op.
std::vector<int> predicted_funcs(const std::string& op_text) {
  std::vector<int> funcs;
  for (const coll::CollectiveOp op : coll::all_collective_ops()) {
    const auto func = topo::tuning_func(op);
    if (func && (op_text.empty() || coll::parse_op(op_text) == op)) funcs.push_back(*func);
  }
  if (funcs.empty()) {
    throw UsageError("--predict " + op_text +
                     ": NCCL's tuner chooses for all_reduce, all_gather, reduce_scatter, broadcast and reduce");
  }
  return funcs;
}

}  // namespace

// Models `options.xml_path` and prints it in `options.format`; returns the exit code. Errors are thrown
// (InputError for the file, UsageError for a bad --env) and mapped by main().
int run_topo_offline(const TopoOptions& options, const std::vector<std::string>& argv) {
  Environment env = Environment::from_process();
  for (const auto& assignment : options.env_assignments) {
    const auto [name, value] = parse_env_assignment(assignment);
    env.set(name, value);
  }
  const topo::TopologyModel model =
      topo::load_topology_file(options.xml_path, env, offline_model_version(options.nccl_version));
  std::string output;
  if (options.predict) {
    output = topo::render_prediction_table(topo::model_communicator(model, topo::resolve_comm_params(env)),
                                           predicted_funcs(options.predict_op));
  } else if (options.format == "json") {
    model::Run run = model::make_run("topo", argv);
    run.environment.variables = env.relevant();
    run.topology = topo::topology_view(model);
    run.topology.prediction = topo::predict_topology(model, env);
    output = model::run_text(run);
  } else if (options.format == "nccl-log") {
    // Then what NCCL prints from the graph search to the end of the communicator's init, and its tuner's choices.
    output = topo::render_nccl_log(model) +
             topo::render_search_log(model, topo::model_communicator(model, topo::resolve_comm_params(env)));
  } else {
    output = topo::render_topology_text(model);
  }
  if (!options.predict && options.format == "json") {
    write_stdout(output);
  } else {
    write_text_stdout(output);
  }
  return 0;
}

namespace {

int run_topo_live_mode(const TopoOptions& options, const std::vector<std::string>& argv) {
  if (!options.sysfs_root.empty()) {
    struct stat info {};
    if (::stat(options.sysfs_root.c_str(), &info) != 0 || !S_ISDIR(info.st_mode)) {
      throw UsageError("--sysfs-root " + options.sysfs_root + ": no such directory");
    }
  }
  TopoLiveOptions live;
  live.format = options.format;
  live.sysfs_root = options.sysfs_root.empty() ? "/" : options.sysfs_root;
  live.capture_path = options.capture_path;
  live.ask_nccl = !options.no_nccl;
  live.dump_xml = options.dump_xml;
  live.env_assignments = options.env_assignments;
  live.mpi_timeout_seconds = options.mpi_timeout_s;
  // Under mpirun/srun every host is discovered and rank 0 compares them; a capture is read by rank 0 alone.
  const auto launch = runtime::detect_launch(Environment::from_process());
  if (launch.parallel() && !options.capture_path.empty()) {
    if (launch.world_rank != 0) return 0;
  } else if (launch.parallel()) {
    runtime::refuse_parallel_launch_without_mpi(launch, platform::mpi_built_in());
    return run_topo_cluster(live, argv);
  }
  return run_topo_live(live, argv);
}

Command add_topo_command(CLI::App& parent, const std::vector<std::string>& argv) {
  auto options = std::make_shared<TopoOptions>();
  Command command;
  command.app = parent.add_subcommand(
      "topo",
      "This machine's GPU topology (NVML, sysfs, CUDA) and the loaded NCCL's model of it, checked against NCCL "
      "itself; or the model of a topology XML (--xml FILE, --nccl-version X.Y.Z)");
  command.app->add_option("--xml", options->xml_path,
                          "NCCL topology XML: an NCCL_TOPO_DUMP_FILE dump or an NCCL_TOPO_FILE (skeleton)")
      ->check(non_empty_path());
  command.app->add_option("--format", options->format, "text (default), json (Run document) or nccl-log")
      ->check(CLI::IsMember({"text", "json", "nccl-log"}));
  command.app->add_option("--env", options->env_assignments,
                          "NAME=VALUE: model NCCL as if this variable were set (repeatable; e.g. NCCL_P2P_LEVEL=PIX)");
  command.app->add_option("--nccl-version", options->nccl_version, kNcclVersionOptionHelp)->type_name("X.Y.Z");
  CLI::Option* predict =
      command.app
          ->add_option("--predict", options->predict_op,
                       "with --xml: NCCL's tuner choice per size (algorithm, protocol, channels, predicted time, "
                       "algbw, busbw) for one collective (all_reduce ...) or, without one, every collective it tunes")
          ->expected(0, 1)
          ->type_name("[OP]");
  command.app->add_option("--capture", options->capture_path,
                          "a capture (`linkscope capture -o FILE`): that machine's facts and model instead of this one's")
      ->check(non_empty_path());
  command.app->add_option("--sysfs-root", options->sysfs_root,
                          "live: read /sys and /proc/cpuinfo below DIR (a snapshot) instead of this machine's")
      ->check(non_empty_path());
  command.app->add_option("--dump-xml", options->dump_xml, "live: write the synthesized NCCL topology XML to FILE")
      ->check(non_empty_path());
  command.app->add_flag("--no-nccl", options->no_nccl, "live: do not ask NCCL for its own topology (no child process)");
  command.app->add_option("--timeout", options->mpi_timeout_s,
                          "under mpirun/srun: seconds rank 0 waits for another rank at each step before it ends the job")
      ->capture_default_str();
  command.run = [options, argv, predict] {
    options->predict = predict->count() > 0;
    checked_seconds(options->mpi_timeout_s, "--timeout", ZeroSeconds::kRefused);
    if (options->predict && options->xml_path.empty()) throw UsageError("--predict needs --xml FILE");
    if (options->predict && options->format != "text") {
      throw UsageError("--predict prints a table; it does not combine with --format " + options->format);
    }
    if (options->xml_path.empty() && !options->nccl_version.empty()) {
      throw UsageError("--nccl-version models a file (--xml); live, linkscope models the libnccl it loads "
                       "(LINKSCOPE_NCCL_LIBRARY chooses it)");
    }
    if (!options->capture_path.empty() && (!options->xml_path.empty() || !options->sysfs_root.empty() || options->no_nccl)) {
      throw UsageError("--capture reads a captured machine; it does not combine with --xml, --sysfs-root or --no-nccl");
    }
    if (options->xml_path.empty()) return run_topo_live_mode(*options, argv);
    if (!options->sysfs_root.empty() || !options->dump_xml.empty() || options->no_nccl) {
      throw UsageError("--sysfs-root, --dump-xml and --no-nccl describe the live machine; --xml models a file");
    }
    // Under mpirun/srun a file is modelled once, by rank 0 (no MPI needed for that).
    const auto launch = runtime::detect_launch(Environment::from_process());
    if (launch.parallel() && launch.world_rank != 0) return 0;
    return run_topo_offline(*options, argv);
  };
  return command;
}

const CommandRegistration kRegistration{10, &add_topo_command};

}  // namespace

}  // namespace linkscope::cli
