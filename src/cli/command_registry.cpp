#include <algorithm>

#include "cli/command.hpp"

namespace linkscope::cli {

namespace {
// A function-local static avoids the static initialisation order problem between cmd_*.cpp files.
std::vector<RegisteredCommand>& registry() {
  static std::vector<RegisteredCommand> commands;
  return commands;
}
}  // namespace

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
