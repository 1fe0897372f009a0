#include "discover/nccl_probe.hpp"

#include <chrono>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/environment.hpp"
#include "core/subprocess.hpp"
#include "core/temp_directory.hpp"

namespace linkscope::discover {

namespace {

std::string read_whole(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The child's one-line error ("linkscope: error: ..."), or the tail of what it wrote.
std::string child_failure(const ChildResult& child) {
  std::istringstream lines(child.err);
  std::string line, last;
  while (std::getline(lines, line)) {
    if (line.rfind("linkscope: error: ", 0) == 0) return line.substr(18);
    if (line.rfind("linkscope: ", 0) == 0) return line.substr(11);
    if (!line.empty()) last = line;
  }
  if (!last.empty()) return last;
  return child.exit_code < 0 ? fmt::format("killed by signal {}", -child.exit_code)
                             : fmt::format("exit code {}", child.exit_code);
}

}  // namespace

std::vector<std::string> nccl_probe_environment(const std::string& directory, const Environment& env,
                                                const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::vector<std::string> assignments = {
      "NCCL_TOPO_DUMP_FILE=" + directory + "/nccl-topo.xml",
      "NCCL_DEBUG=INFO",
      "NCCL_DEBUG_SUBSYS=INIT,GRAPH",
      "NCCL_DEBUG_FILE=" + directory + "/nccl.log",
  };
  // The GPU machines ask for NVLS off; keep it off unless the user decided otherwise.
  if (!env.has("NCCL_NVLS_ENABLE")) assignments.push_back("NCCL_NVLS_ENABLE=0");
  for (const auto& [name, value] : overrides) assignments.push_back(name + "=" + value);
  return assignments;
}

NcclProbeResult run_nccl_probe(const NcclProbeRequest& request) {
  NcclProbeResult result;
  const TempDirectory scratch("linkscope-nccl", Environment::from_process());
  if (scratch.path().empty()) {
    result.status = "failed";
    result.reason = "NCCL's topology dump: " + scratch.why();
    return result;
  }
  const Environment empty = Environment::from_map({});
  ChildSpec spec;
  spec.program = request.program;
  spec.args = {"__nccl-topo-probe"};
  spec.set_env = nccl_probe_environment(scratch.path(), request.env != nullptr ? *request.env : empty, request.overrides);
  spec.timeout_seconds = request.timeout_seconds;
  result.child_env = spec.set_env;
  const auto start = std::chrono::steady_clock::now();
  const ChildResult child = run_child(spec);
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  result.dump_xml = read_whole(scratch.path() + "/nccl-topo.xml");
  result.log = read_whole(scratch.path() + "/nccl.log");
  if (child.timed_out) {
    result.status = "timeout";
    result.reason = fmt::format("NCCL did not finish creating communicators within {:.0f} s", request.timeout_seconds);
    return result;
  }
  if (!child.started || child.exit_code != 0) {
    result.status = "failed";
    result.reason = child.started ? child_failure(child) : "could not start the linkscope probe child";
    return result;
  }
  try {
    const auto line = nlohmann::json::parse(child.out);
    result.nccl_version = line.at("nccl_version").get<std::string>();
    result.device_count = line.at("device_count").get<int>();
    result.init_seconds = line.at("init_seconds").get<double>();
  } catch (const nlohmann::json::exception& e) {
    result.status = "failed";
    result.reason = fmt::format("the probe child printed no result: {}", e.what());
    return result;
  }
  result.status = "ok";
  if (result.dump_xml.empty()) {
    result.status = "failed";
    result.reason = "NCCL wrote no topology dump (NCCL_TOPO_DUMP_FILE)";
  }
  return result;
}

}  // namespace linkscope::discover
