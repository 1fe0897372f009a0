#include "support/run_command.hpp"

#include <fstream>
#include <sstream>

#include "core/subprocess.hpp"

namespace linkscope::test {

CommandResult run_command(const std::string& program, const std::vector<std::string>& args,
                          const std::vector<std::string>& env, int timeout_seconds) {
  ChildSpec spec;
  spec.program = program;
  spec.args = args;
  for (const auto& assignment : env) {
    if (assignment.find('=') == std::string::npos) {
      spec.unset_env.push_back(assignment);
    } else {
      spec.set_env.push_back(assignment);
    }
  }
  spec.timeout_seconds = timeout_seconds;
  const ChildResult child = run_child(spec);
  return {child.timed_out ? -9 : child.exit_code, child.out, child.err};
}

std::string fixture(const std::string& relative) { return std::string(LINKSCOPE_FIXTURES_DIR) + "/" + relative; }

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

}  // namespace linkscope::test
