// Hidden subcommand run by `linkscope topo` in a child process: NCCL reads its environment once per process,
// so its topology dump and debug log (NCCL_TOPO_DUMP_FILE, NCCL_DEBUG_FILE) are asked for in a fresh one.
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli/command.hpp"
#include "platform/nccl_topology_probe.hpp"

namespace linkscope::cli {

namespace {

Command add_nccl_topo_probe_command(CLI::App& parent, const std::vector<std::string>& /*argv*/) {
  Command command;
  command.app = parent.add_subcommand("__nccl-topo-probe", "Internal: let NCCL build and dump its topology");
  command.app->group("");  // hidden from --help
  command.run = [] {
    const platform::NcclProbeOutcome outcome = platform::run_nccl_topology_probe();
    const nlohmann::json result = {{"nccl_version", outcome.nccl_version},
                                   {"device_count", outcome.device_count},
                                   {"init_seconds", outcome.init_seconds}};
    fmt::print("{}\n", result.dump());
    return 0;
  };
  return command;
}

const CommandRegistration kRegistration{990, &add_nccl_topo_probe_command};

}  // namespace

}  // namespace linkscope::cli
