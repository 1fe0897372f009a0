#pragma once
#include <string>
#include <vector>

namespace linkscope::test {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

// Runs `program` with `args` (no shell), with extra environment assignments "NAME=VALUE",
// ("NAME" alone unsets it) and captures stdout, stderr and the exit code. A timeout reports exit -9.
CommandResult run_command(const std::string& program, const std::vector<std::string>& args,
                          const std::vector<std::string>& env = {}, int timeout_seconds = 120);

// Path of a fixture under tests/fixtures.
std::string fixture(const std::string& relative);

// Whole file as a string; empty when unreadable.
std::string read_text(const std::string& path);

}  // namespace linkscope::test
