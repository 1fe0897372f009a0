// linkscope entry point: parses the command line, runs one subcommand, maps errors to exit codes.
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "cli/error_exit.hpp"
#include "core/error.hpp"
#include "core/long_numbers.hpp"
#include "core/terminal_text.hpp"
#include "linkscope/version.hpp"
#include "plan/nccl_tests_personality.hpp"

namespace {

using linkscope::ExitCode;
using linkscope::to_int;

int run_cli(int argc, char** argv) {
  CLI::App app{"linkscope: how fast the GPUs of a machine really talk to each other, why, and what is wrong"};
  app.set_version_flag("--version", fmt::format("linkscope {} ({})", linkscope::kVersion, linkscope::kGitDescribe));
  app.require_subcommand(1);
  app.fallthrough(false);

  std::vector<std::string> arguments(argv, argv + argc);
  // A link named all_reduce_perf, sendrecv_perf, ... behaves as that nccl-tests binary.
  if (auto personality = linkscope::coll::nccl_tests_personality_args(arguments)) arguments = std::move(*personality);
  std::vector<char*> parse_argv;
  for (auto& argument : arguments) parse_argv.push_back(argument.data());
  std::vector<linkscope::cli::Command> commands;
  for (const auto& registered : linkscope::cli::registered_commands()) {
    commands.push_back(registered.factory(app, arguments));
  }
  linkscope::cli::bound_integer_options(app);

  try {
    app.parse(static_cast<int>(parse_argv.size()), parse_argv.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    linkscope::print_stderr_line(
        fmt::format("linkscope: error: {} (see linkscope --help)", linkscope::clip_long_numbers(e.what())));
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
  } catch (const std::exception& e) {
    return linkscope::cli::report_error(e);
  }
}
