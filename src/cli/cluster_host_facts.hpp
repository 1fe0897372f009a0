#pragma once
#include <optional>
#include <string>

#include "cli/topo_live.hpp"
#include "cluster/host_comparison.hpp"
#include "cluster/job_session.hpp"

// Every host's hardware facts under mpirun/srun (`topo`, `cluster`): each host's leader discovers its machine as
// `linkscope topo` does and sends its report; rank 0 compares them.
namespace linkscope::cli {

// This host's report as its leader sends it: identity, NCCL version and the facts discover_topo_live finds (or why
// it failed). `mine` receives this leader's own discovery; `dump_xml_path` as discover_topo_live writes it.
cluster::HostReport discover_host_report(const cluster::ClusterSession& session, const TopoLiveOptions& options,
                                         const std::string& dump_xml_path, std::optional<TopoLiveResult>& mine);

// Every leader's report (`mine` from this one; ignored on other ranks) compared at rank 0; nothing elsewhere.
// `work_s`: how much longer than rank 0 a host's discovery may take.
std::optional<cluster::HostsComparison> compare_gathered_hosts(cluster::ClusterSession& session,
                                                               const std::optional<cluster::HostReport>& mine,
                                                               double work_s = 0);

}  // namespace linkscope::cli
