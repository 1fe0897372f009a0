// linkscope entry point: parses the command line, runs one subcommand, maps errors to exit codes.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "core/error.hpp"
#include "linkscope/version.hpp"

namespace {

using linkscope::ExitCode;
using linkscope::to_int;

int run_cli(int argc, char** argv) {
  CLI::App app{"linkscope: how fast the GPUs of a machine really talk to each other, why, and what is wrong"};
  app.set_version_flag("--version", fmt::format("linkscope {} ({})", linkscope::kVersion, linkscope::kGitDescribe));
  app.require_subcommand(1);
  app.fallthrough(false);

  const std::vector<std::string> arguments(argv, argv + argc);
  std::vector<linkscope::cli::Command> commands;
  for (const auto& registered : linkscope::cli::registered_commands()) {
    commands.push_back(registered.factory(app, arguments));
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "linkscope: error: %s (see linkscope --help)\n", e.what());
    return to_int(ExitCode::kUsage);
  }
  for (const auto& command : commands) {
    if (command.app->parsed()) return command.run();
  }
  std::fprintf(stderr, "linkscope: error: no subcommand given (see linkscope --help)\n");
  return to_int(ExitCode::kUsage);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run_cli(argc, argv);
  } catch (const linkscope::Error& e) {
    std::fprintf(stderr, "linkscope: error: %s\n", e.what());
    return to_int(e.code());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "linkscope: internal error: %s\n", e.what());
    return to_int(ExitCode::kInternal);
  }
}
