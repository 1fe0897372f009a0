// `linkscope topo`: NCCL 2.28.9's topology model. Offline from a topology XML (--xml) today; the live mode
// (this machine's sysfs/NVML facts) will be added to the same command.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/run.hpp"
#include "topo/topology_model.hpp"

namespace linkscope::cli {

struct TopoOptions {
  std::string xml_path;
  std::string format = "text";            // text | json | nccl-log
  std::vector<std::string> env_assignments;  // --env NAME=VALUE, applied over the process environment
};

// Models `options.xml_path` and prints it in `options.format`; returns the exit code. Errors are thrown
// (InputError for the file, UsageError for a bad --env) and mapped by main().
int run_topo_offline(const TopoOptions& options, const std::vector<std::string>& argv) {
  Environment env = Environment::from_process();
  for (const auto& assignment : options.env_assignments) {
    const auto [name, value] = parse_env_assignment(assignment);
    env.set(name, value);
  }
  const topo::TopologyModel model = topo::load_topology_file(options.xml_path, env);
  std::string output;
  if (options.format == "json") {
    RunDocument run = make_run("topo", argv);
    run.environment["variables"] = env.relevant();
    run.model = topo::model_to_json(model);
    output = run_to_json(run).dump(2) + "\n";
  } else if (options.format == "nccl-log") {
    output = topo::render_nccl_log(model);
  } else {
    output = topo::render_topology_text(model);
  }
  std::fwrite(output.data(), 1, output.size(), stdout);
  return 0;
}

namespace {

Command add_topo_command(CLI::App& parent, const std::vector<std::string>& argv) {
  auto options = std::make_shared<TopoOptions>();
  Command command;
  command.app = parent.add_subcommand(
      "topo", "NCCL 2.28.9's topology model: graph, paths, P2P and GPUDirect RDMA decisions (offline: --xml FILE)");
  command.app->add_option("--xml", options->xml_path,
                          "NCCL topology XML: an NCCL_TOPO_DUMP_FILE dump or an NCCL_TOPO_FILE (skeleton)");
  command.app->add_option("--format", options->format, "text (default), json (Run document) or nccl-log")
      ->check(CLI::IsMember({"text", "json", "nccl-log"}));
  command.app->add_option("--env", options->env_assignments,
                          "NAME=VALUE: model NCCL as if this variable were set (repeatable; e.g. NCCL_P2P_LEVEL=PIX)");
  command.run = [options, argv] {
    if (options->xml_path.empty()) {
      throw UsageError("topo needs --xml FILE: live topology discovery is not built yet");
    }
    return run_topo_offline(*options, argv);
  };
  return command;
}

const CommandRegistration kRegistration{10, &add_topo_command};

}  // namespace

}  // namespace linkscope::cli
