#pragma once
#include <functional>
#include <string>
#include <vector>

#include "cluster/host_report.hpp"
#include "cluster/rank_hello.hpp"
#include "cluster/roster.hpp"
#include "core/error.hpp"
#include "platform/mpi_session.hpp"

// One rank of a linkscope MPI job (mpirun, srun): MPI, this rank's host identity, the greeting every rank sends
// rank 0 and the roster rank 0 sends back (refused when builds or arguments differ), and deadline-bound steps
// between the ranks. Subcommands that run under MPI (topo, cluster, doctor) go through run_cluster_command.
namespace linkscope::cluster {

class ClusterSession {
 public:
  // `timeout_s` bounds rank 0's wait at each step; other ranks wait 2 x timeout + 10 s, so that rank 0, which
  // names the rank that did not answer, is the one that ends the job. `fill` adds what the command knows
  // about this rank to its greeting (its GPU).
  ClusterSession(platform::MpiSession& mpi, const std::vector<std::string>& argv, double timeout_s,
                 const std::function<void(RankHello&)>& fill);

  platform::MpiSession& mpi() { return mpi_; }
  const Roster& roster() const { return roster_; }
  int rank() const { return mpi_.rank(); }
  bool is_root() const { return mpi_.rank() == 0; }
  bool leads_host() const { return roster_.leads(rank()); }
  const RosterHost& my_host() const { return roster_.host_of(rank()); }
  std::size_t my_host_index() const { return static_cast<std::size_t>(roster_.host_of_rank.at(static_cast<std::size_t>(rank()))); }
  std::vector<int> all_ranks() const;
  double timeout_s() const { return timeout_s_; }
  // This rank's deadline for a step whose slowest rank may work `work_s` seconds longer than this one.
  double wait_s(double work_s = 0) const;

  // Every host leader's text at rank 0, in host order (empty elsewhere). Non-leaders take no part.
  std::vector<std::string> gather_from_leaders(const std::string& text, const std::string& what, double work_s = 0);
  // Every rank's text at rank 0, in rank order.
  std::vector<std::string> gather_from_all(const std::string& text, const std::string& what, double work_s = 0);
  // Rank 0's text at every rank.
  std::string broadcast(const std::string& text, const std::string& what, double work_s = 0);
  // For a long phase in which each host leader works on its own (doctor measuring every host): a leader tells
  // rank 0 it is alive with send_progress() between its steps and sends its text when done. Rank 0 names a
  // leader only when its last sign of life is `idle_s` seconds old (by the time since `phase_start` each side
  // measures), so a slow host is waited for and a hung one is not. Returns the leaders' texts in host order at
  // rank 0; other ranks take no part.
  std::vector<std::string> gather_from_leaders_with_progress(const std::string& text, const std::string& what,
                                                             double idle_s, double phase_start_s);
  void send_progress(double phase_start_s, const std::string& step);
  // Seconds on this rank's monotonic clock, for phase_start_s.
  static double now_s();
  // Every rank waits for the others (rank 0 collects a word from each, then releases them).
  void barrier(const std::string& what, double work_s = 0);

 private:
  platform::MpiSession& mpi_;
  Roster roster_;
  double timeout_s_;
};

// The NCCL library this host would load (version, or why there is none), for its HostReport.
void fill_nccl_version(HostReport& report);

// The roster's refusal (different builds or arguments, a rank that could not start), thrown at every rank.
class ClusterRefused : public Error {
 public:
  ClusterRefused(int code, const std::string& message) : Error(static_cast<ExitCode>(code), message) {}
};

// Runs `body` as one rank of the job. Rank 0 reports a refusal as the usual one-line error and exits with its
// code; the other ranks stay silent and exit 0 (a launcher ends the whole job when one rank exits non-zero, which
// could cut rank 0's message). Bodies follow the same rule: rank 0 prints and returns the code. A wait that expired, or any other failure once the ranks are
// coupled, prints "linkscope: error (rank R on HOST): ..." and ends the whole job with MPI_Abort, so no
// rank is left waiting.
int run_cluster_command(const std::vector<std::string>& argv, double timeout_s,
                        const std::function<void(RankHello&)>& fill,
                        const std::function<int(ClusterSession&)>& body);

}  // namespace linkscope::cluster
