#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>

#include <fmt/format.h>

#include "cli/command.hpp"

namespace linkscope::cli {

namespace {
// A function-local static avoids the static initialisation order problem between cmd_*.cpp files.
std::vector<RegisteredCommand>& registry() {
  static std::vector<RegisteredCommand> commands;
  return commands;
}

// Accepts what CLI11 converts into an int (decimal, 0x hex, 0 octal, as strtoll reads them) that fits one.
std::string int_range_error(const std::string& value) {
  errno = 0;
  char* end = nullptr;
  const long long number = std::strtoll(value.c_str(), &end, 0);
  const bool number_only = !value.empty() && end != nullptr && *end == '\0';
  if (number_only && errno != ERANGE && number >= INT_MIN && number <= INT_MAX) return "";
  return fmt::format("{} is {} (expected a whole number from {} to {})", value,
                     number_only ? "out of range" : "not a whole number", INT_MIN, INT_MAX);
}

}  // namespace

void bound_integer_options(CLI::App& app) {
  for (CLI::Option* option : app.get_options()) {
    // No description: --help and the completion scripts show the option as before.
    if (option->get_type_name() == "INT") option->check(CLI::Validator(int_range_error, "", "int range"));
  }
  for (CLI::App* sub : app.get_subcommands({})) bound_integer_options(*sub);
}

CommandRegistration::CommandRegistration(int order, CommandFactory factory) {
  registry().push_back({order, factory});
}

std::vector<RegisteredCommand> registered_commands() {
  std::vector<RegisteredCommand> sorted = registry();
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const RegisteredCommand& a, const RegisteredCommand& b) { return a.order < b.order; });
  return sorted;
}

}  // namespace linkscope::cli
