// Hidden subcommand the build runs to generate the installed shell completion scripts and the man page's list
// of subcommands: `linkscope __completion bash|zsh|subcommands`.
#include <fmt/format.h>

#include <memory>

#include "cli/command.hpp"
#include "cli/shell_completion.hpp"

namespace linkscope::cli {

namespace {

Command add_completion_command(CLI::App& parent, const std::vector<std::string>& /*argv*/) {
  Command command;
  auto shell = std::make_shared<std::string>();
  command.app = parent.add_subcommand("__completion", "Internal: print a shell completion script");
  command.app->group("");  // hidden from --help
  command.app->add_option("shell", *shell, "bash, zsh, or subcommands (their names, one a line)")
      ->required()
      ->check(CLI::IsMember({"bash", "zsh", "subcommands"}));
  const CLI::App* root = &parent;
  command.run = [root, shell] {
    if (*shell == "bash") {
      fmt::print("{}", bash_completion(*root, "linkscope"));
    } else if (*shell == "zsh") {
      fmt::print("{}", zsh_completion(*root, "linkscope"));
    } else {
      for (const CLI::App* sub : visible_subcommands(*root)) fmt::print("{}\n", sub->get_name());
    }
    return 0;
  };
  return command;
}

const CommandRegistration kRegistration{995, &add_completion_command};

}  // namespace

}  // namespace linkscope::cli
