#pragma once
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

// Shell completion scripts generated from the CLI11 definition itself (`linkscope __completion bash|zsh`, which
// the build runs to make the installed scripts), so they always name the subcommands and options that exist.
namespace linkscope::cli {

// The visible subcommands of `root` (hidden ones have an empty group), in definition order.
std::vector<const CLI::App*> visible_subcommands(const CLI::App& root);

// A bash script defining _<program> and registering it for `program` (complete -F): subcommands, then their
// options; after an option that takes a value, or where a positional goes, file names.
std::string bash_completion(const CLI::App& root, const std::string& program);

// A zsh #compdef script for `program`: subcommands with their descriptions, then each one's options.
std::string zsh_completion(const CLI::App& root, const std::string& program);

}  // namespace linkscope::cli
