#include "cli/cluster_per_host.hpp"

#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cluster/job_session.hpp"
#include "cluster/roster.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/subprocess.hpp"
#include "core/terminal_text.hpp"
#include "platform/mpi_session.hpp"
#include "runtime/launch_environment.hpp"

namespace linkscope::cli {

namespace {

using nlohmann::json;

bool asks_for_json(const std::vector<std::string>& argv) {
  for (std::size_t i = 1; i < argv.size(); ++i) {
    if (argv[i] == "--format=json" || (argv[i] == "--format" && i + 1 < argv.size() && argv[i + 1] == "json")) return true;
  }
  return false;
}

// Every line of `text` with "[host] " in front.
std::string prefixed(const std::string& text, const std::string& host) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    out += "[" + host + "] " + text.substr(start, end - start) + "\n";
    start = end + 1;
  }
  return out;
}

}  // namespace

std::optional<int> run_on_every_host(const std::vector<std::string>& argv) {
  const auto launch = runtime::detect_launch(Environment::from_process());
  if (!launch.parallel()) return std::nullopt;
  runtime::refuse_parallel_launch_without_mpi(launch, platform::mpi_built_in());
  // The children bound their own hangs (copy gates, collective watchdogs); rank 0 waits for them.
  constexpr double kHostRunLimit_s = 12 * 3600;
  return cluster::run_cluster_command(argv, 60, nullptr, [&](cluster::ClusterSession& session) {
    std::string mine;
    if (session.leads_host()) {
      ChildSpec spec;
      spec.args.assign(argv.begin() + 1, argv.end());
      spec.unset_env = runtime::launch_variable_names();
      spec.timeout_seconds = kHostRunLimit_s;
      const ChildResult child = run_child(spec);
      mine = json({{"out", child.out}, {"err", child.err}, {"exit_code", child.timed_out ? -9 : child.exit_code}}).dump();
    }
    const auto texts = session.gather_from_leaders(mine, "waiting for every host's own run", kHostRunLimit_s);
    if (!session.is_root()) return 0;
    const cluster::Roster& roster = session.roster();
    const bool as_json = asks_for_json(argv);
    json hosts = json::array();
    int code = 0;
    for (std::size_t i = 0; i < texts.size(); ++i) {
      const json result = json::parse(texts[i]);
      const auto& host = roster.hosts[i];
      const int exit_code = result["exit_code"].get<int>();
      if (code == 0 && exit_code != 0) code = exit_code < 0 ? to_int(ExitCode::kTimeout) : exit_code;
      const std::string err = result["err"].get<std::string>();
      std::fputs(visible_controls(prefixed(err, host.name)).c_str(), stderr);
      if (as_json) {
        json run = nullptr;
        try {
          run = json::parse(result["out"].get<std::string>());
        } catch (const json::exception&) {
        }
        hosts.push_back({{"host", host.name}, {"ranks", host.ranks}, {"exit_code", exit_code}, {"run", run}});
      } else {
        const std::string text =
            fmt::format("{}== {} ({}, measured by rank {}): exit {} ==\n{}", i == 0 ? "" : "\n", visible_field(host.name),
                        cluster::rank_list(host.ranks), host.leader, exit_code, result["out"].get<std::string>());
        std::fputs(visible_controls(text).c_str(), stdout);
      }
    }
    if (as_json) std::printf("%s\n", json({{"hosts", hosts}}).dump(2).c_str());
    std::fflush(stdout);
    return code;
  });
}

}  // namespace linkscope::cli
