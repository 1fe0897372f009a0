// `linkscope topo` under mpirun/srun: one discovery per host, compared at rank 0.
#include <cstdio>

#include <fmt/format.h>

#include "cli/cluster_host_facts.hpp"
#include "cli/topo_live.hpp"
#include "cluster/host_comparison.hpp"
#include "cluster/job_session.hpp"
#include "core/error.hpp"
#include "core/file_io.hpp"
#include "core/terminal_text.hpp"
#include "discover/live_system.hpp"
#include "model/run.hpp"
#include "model/run_file.hpp"
#include "report/cluster_tables.hpp"
#include "report/topo_live_text.hpp"
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

// Why a host's view is incomplete as a whole (as single-host topo decides), from its facts.
std::string host_unavailable(const cluster::HostReport& host) {
  if (!host.error.empty()) return host.error;
  if (!host.system) return "no hardware facts arrived";
  const model::System& system = *host.system;
  if (!system.driver.available) return "NVIDIA driver unavailable: " + system.driver.reason;
  if (!system.cuda.available && !system.visibility.cuda_visible_devices) {
    return "CUDA runtime unavailable: " + system.cuda.reason;
  }
  return "";
}

}  // namespace

int run_topo_cluster(const TopoLiveOptions& options, const std::vector<std::string>& argv) {
  const auto launch = runtime::detect_launch(Environment::from_process());
  const auto body = [&](cluster::ClusterSession& session) {
    const cluster::Roster& roster = session.roster();
    std::optional<TopoLiveResult> mine;
    std::optional<cluster::HostReport> report;
    if (session.leads_host()) {
      const std::string& name = session.my_host().name;
      const std::string dump = options.dump_xml.empty() || roster.hosts.size() == 1 ? options.dump_xml
                                                                                     : per_host_path(options.dump_xml, name);
      report = discover_host_report(session, options, dump, mine);
    }
    // A host's NCCL child may take up to its timeout longer than rank 0's own discovery.
    const bool nccl_child = options.ask_nccl && options.sysfs_root == "/";  // a snapshot is not asked to NCCL
    const auto comparison = compare_gathered_hosts(session, report, nccl_child ? options.nccl_timeout_seconds : 0);
    if (!session.is_root()) return 0;

    model::Run run = mine ? discover::topo_live_run(mine->live, mine->check, mine->env, argv) : model::make_run("topo", argv);
    run.config.host = session.my_host().name;
    run.environment.launch = launch.launcher;
    cluster::add_hosts_to_system(run.system, *comparison);
    std::vector<std::string> unavailable;
    for (const auto& host : comparison->hosts) {
      const std::string why = host_unavailable(host);
      if (why.empty()) continue;
      unavailable.push_back(fmt::format("{}: {}", host.name, why));
      run.record_error("host " + host.name, why);
    }

    if (options.format == "json") {
      write_stdout(model::run_text(run));
    } else if (options.format == "nccl-log") {
      if (!mine || !mine->check.ours) {
        print_stderr_line("linkscope: error: " + session.my_host().name + ": no NCCL model of this host");
        return to_int(ExitCode::kDevice);
      }
      write_text_stdout(mine->check.ours->nccl_log);
    } else {
      // The same text `linkscope report` prints for this run.
      write_text_stdout(report::render_topo_text(run));
    }
    if (unavailable.empty()) return 0;
    std::string message;
    for (const auto& line : unavailable) message += (message.empty() ? "" : "; ") + line;
    print_stderr_line("linkscope: error: " + message);
    return to_int(ExitCode::kDevice);
  };
  return cluster::run_cluster_command(argv, options.mpi_timeout_seconds, nullptr, body);
}

}  // namespace linkscope::cli
