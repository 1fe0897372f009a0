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

// Each subcommand lives in its own cmd_*.cpp and registers itself here.
// `argv` is the full command line, recorded in Run documents.
Command add_version_command(CLI::App& parent);

}  // namespace linkscope::cli
