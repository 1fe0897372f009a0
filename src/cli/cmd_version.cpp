#include <cstdio>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "linkscope/version.hpp"

namespace linkscope::cli {

Command add_version_command(CLI::App& parent) {
  Command command;
  command.app = parent.add_subcommand("version", "Print the linkscope version and build");
  command.run = [] {
    fmt::print("linkscope {} ({})\n", kVersion, kGitDescribe);
    return 0;
  };
  return command;
}

}  // namespace linkscope::cli
