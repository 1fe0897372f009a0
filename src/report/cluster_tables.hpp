#pragma once
#include <string>

#include "model/run.hpp"
#include "report/report_tables.hpp"

// The tables of a run made by several hosts (MPI): the hosts and how they differ (model::System::hosts,
// host_groups, host_differences) and the cross-host measurements (model::CrossHost). Read from the typed Run alone,
// shared by the text, Markdown and HTML renderers.
namespace linkscope::report {

bool has_hosts(const model::Run& run);
bool has_cross_host(const model::Run& run);

Table hosts_table(const model::Run& run);             // one row per host: ranks, group, versions, GPUs, NICs, differences
Table host_groups_table(const model::Run& run);       // groups of identical hosts
Table host_differences_table(const model::Run& run);  // per trait that differs: the common value and the other hosts
Table host_findings_table(const model::Run& run);     // per host: its own diagnosis (doctor under MPI)
Table cross_host_matrix_table(const model::Run& run); // host x host sendrecv GB/s
Table cross_host_pairs_table(const model::Run& run);  // per pair: GPUs, NICs, transport, size, GB/s, status
Table cross_host_slow_table(const model::Run& run);   // the slow hosts, pairs and failures named
Table cross_host_all_reduce_table(const model::Run& run);

// The host x host sendrecv matrix as a heatmap (empty with fewer than two hosts); file name in the report directory.
inline constexpr const char* kCrossHostSvg = "cross-host-heatmap.svg";
std::string cross_host_heatmap_svg(const model::Run& run);

// "cluster of 4 hosts (32 ranks); the sections below Hosts and Cross-host describe node-a (rank 0)"; empty for one host.
std::string cluster_scope_note(const model::Run& run);

// One line on where the host names came from, e.g. "host names from LINKSCOPE_HOST_PER_RANK (one host per
// rank)"; empty when every name is the machine's own.
std::string host_identity_note(const model::Run& run);

// Aligned plain-text columns (two spaces apart) for the terminal renderers.
std::string table_as_text(const Table& table, const std::string& indent = "  ");

// Lines for the short summary: hosts, groups, what differs, the cross-host range and the slow hosts (empty for a
// run of one host).
std::string cluster_summary_lines(const model::Run& run);

// What `topo`, `cluster` and `doctor` print about the hosts and the cross-host tests (empty sections left out).
std::string render_hosts_text(const model::Run& run);
std::string render_cross_host_text(const model::Run& run);

// Ranks over every host of the job (system.hosts).
int rank_count(const model::System& system);
// "linkscope topo: 2 host(s), 16 rank(s) under MPI (mpirun)": the first line of a command run under MPI
// (`subcommand` on the hosts of system.hosts, launched by environment.launch).
std::string mpi_job_line(const model::Run& run, const std::string& subcommand);
// What `linkscope cluster` prints: the job line, the hosts, then the cross-host tests.
std::string render_cluster_text(const model::Run& run);

}  // namespace linkscope::report
