#include <fmt/format.h>

#include "cli/command.hpp"
#include "core/file_io.hpp"
#include "linkscope/version.hpp"

namespace linkscope::cli {

namespace {

Command add_version_command(CLI::App& parent, const std::vector<std::string>& /*argv*/) {
  Command command;
  command.app = parent.add_subcommand("version", "Print the linkscope version and build");
  command.run = [] {
    write_stdout(fmt::format("linkscope {} ({})\n", kVersion, kGitDescribe));  // a failed write is exit 2
    return 0;
  };
  return command;
}

const CommandRegistration kRegistration{900, &add_version_command};

}  // namespace

}  // namespace linkscope::cli
