#pragma once
#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace linkscope::cli {

// One subcommand: its CLI11 app (options bound to its own state) and what to run when it was chosen.
// `run` returns the process exit code; it may throw linkscope::Error, which main() maps to a code.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

// For an option that names a file or directory: "" is a usage error at parsing ("--xml: no file named"), never
// the same as leaving the option out (which may mean "measure this machine").
inline CLI::Validator non_empty_path() {
  // No description: --help and the completion scripts show the option as before.
  return CLI::Validator([](const std::string& value) { return value.empty() ? std::string("no file named") : ""; },
                        "", "non-empty path");
}

// Gives every integer option of `app` and its subcommands its range: a number that does not fit (`-n 99999999999`)
// or is no number is a usage error stating the range, where CLI11 alone says only "Could not convert". Every
// integer option of linkscope is an `int`; a wider one would need its own range here.
void bound_integer_options(CLI::App& app);

// Adds a subcommand to `parent` and returns it. `argv` is the whole command line (for Run documents).
using CommandFactory = Command (*)(CLI::App& parent, const std::vector<std::string>& argv);

// Each cmd_*.cpp registers its factory with a file-scope CommandRegistration, so adding a subcommand
// touches no shared file. `order` sorts `--help` (lower first).
struct CommandRegistration {
  CommandRegistration(int order, CommandFactory factory);
};

struct RegisteredCommand {
  int order;
  CommandFactory factory;
};
// All registered factories, sorted by order.
std::vector<RegisteredCommand> registered_commands();

}  // namespace linkscope::cli
