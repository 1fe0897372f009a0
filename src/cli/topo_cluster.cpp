// `linkscope topo` under mpirun/srun: one discovery per host, compared at rank 0.
#include <cstdio>

#include <fmt/format.h>

#include "cli/cluster_session.hpp"
#include "cli/topo_live.hpp"
#include "cluster/host_comparison.hpp"
#include "cluster/host_report.hpp"
#include "core/error.hpp"
#include "core/run.hpp"
#include "discover/live_json.hpp"
#include "report/cluster_tables.hpp"
#include "runtime/launch_environment.hpp"

namespace linkscope::cli {

namespace {

// "topo.xml" -> "topo.node-a.xml": several hosts may share one file system.
std::string per_host_path(const std::string& path, const std::string& host) {
  const auto slash = path.rfind('/');
  const auto dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return path + "." + host;
  return path.substr(0, dot) + "." + host + path.substr(dot);
}

// Why a host's view is incomplete as a whole (as single-host topo decides), from its `system` JSON.
std::string host_unavailable(const cluster::HostReport& host) {
  if (!host.error.empty()) return host.error;
  const auto& driver = host.system["driver"];
  if (!driver.value("available", false)) return "NVIDIA driver unavailable: " + driver.value("reason", std::string("?"));
  const auto& cuda = host.system["cuda"];
  if (!cuda.value("available", false) && host.system["visibility"]["cuda_visible_devices"].is_null()) {
    return "CUDA runtime unavailable: " + cuda.value("reason", std::string("?"));
  }
  return "";
}

}  // namespace

int run_topo_cluster(const TopoLiveOptions& options, const std::vector<std::string>& argv) {
  const auto launch = runtime::detect_launch(Environment::from_process());
  return run_cluster_command(argv, options.mpi_timeout_seconds, nullptr, [&](ClusterSession& session) {
    const cluster::Roster& roster = session.roster();
    std::optional<TopoLiveResult> mine;
    std::string report_text;
    if (session.leads_host()) {
      cluster::HostReport report = cluster::host_report_for(roster, session.my_host_index());
      fill_nccl_version(report);
      try {
        const std::string dump = options.dump_xml.empty() || roster.hosts.size() == 1
                                     ? options.dump_xml
                                     : per_host_path(options.dump_xml, report.name);
        mine = discover_topo_live(options, dump);
        report.system = discover::live_discovery_to_json(mine->live, mine->check);
      } catch (const Error& e) {
        report.error = e.what();
      }
      report_text = cluster::host_report_to_json(report).dump();
    }
    // A host's NCCL child may take up to its timeout longer than rank 0's own discovery.
    const bool nccl_child = options.ask_nccl && options.sysfs_root == "/";  // a snapshot is not asked to NCCL
    const double work_s = nccl_child ? options.nccl_timeout_seconds : 0;
    const auto texts = session.gather_from_leaders(report_text, "collecting every host's hardware facts", work_s);
    if (!session.is_root()) return 0;

    std::vector<cluster::HostReport> reports;
    for (const auto& text : texts) reports.push_back(cluster::host_report_from_json(nlohmann::json::parse(text)));
    const cluster::HostsComparison comparison = cluster::compare_hosts(reports);

    RunDocument run = mine ? discover::topo_live_run(mine->live, mine->check, mine->env, argv) : make_run("topo", argv);
    run.config["host"] = session.my_host().name;
    run.environment["launch"] = launch.launcher;
    cluster::add_hosts_to_system(run.system, comparison);
    std::vector<std::string> unavailable;
    for (const auto& host : comparison.hosts) {
      const std::string why = host_unavailable(host);
      if (why.empty()) continue;
      unavailable.push_back(fmt::format("{}: {}", host.name, why));
      record_error(run, "host " + host.name, why);
    }

    if (options.format == "json") {
      fmt::print("{}\n", run_to_json(run).dump(2));
    } else if (options.format == "nccl-log") {
      if (!mine || !mine->check.ours) {
        std::fprintf(stderr, "linkscope: error: %s: no NCCL model of this host\n", session.my_host().name.c_str());
        return to_int(ExitCode::kDevice);
      }
      fmt::print("{}", mine->check.ours->nccl_log);
    } else {
      fmt::print("linkscope topo: {} host(s), {} rank(s) under MPI ({})\n\n", roster.hosts.size(), roster.world_size,
                 launch.launcher);
      fmt::print("{}", report::render_hosts_text(run));
      fmt::print("\nThis host in detail: {} (rank 0)\n", session.my_host().name);
      if (mine) fmt::print("{}", render_topo_live(*mine));
    }
    std::fflush(stdout);
    if (unavailable.empty()) return 0;
    std::string message;
    for (const auto& line : unavailable) message += (message.empty() ? "" : "; ") + line;
    std::fprintf(stderr, "linkscope: error: %s\n", message.c_str());
    return to_int(ExitCode::kDevice);
  });
}

}  // namespace linkscope::cli
