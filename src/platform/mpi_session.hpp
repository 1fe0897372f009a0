#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"

// MPI for multi-process runs (one rank per GPU under mpirun/srun). linkscope links no MPI: the session opens the
// node's libmpi and linkscope's adapter for its ABI at run time (platform/mpi_library.hpp), so only a process
// started by a launcher ever loads MPI. Where none is usable the session cannot be created and says why.
namespace linkscope::platform {

// True when this linkscope was built with at least one MPI adapter (whether an MPI is installed is known only
// when a session opens it).
bool mpi_built_in();

// A wait for other ranks that ran past its deadline; `missing()` lists the ranks that did not answer.
class MpiWaitTimeout : public TimeoutError {
 public:
  MpiWaitTimeout(const std::string& message, std::vector<int> missing)
      : TimeoutError(message), missing_(std::move(missing)) {}
  const std::vector<int>& missing() const { return missing_; }

 private:
  std::vector<int> missing_;
};

class MpiSession {
 public:
  enum class Op { kSum, kMin, kMax };

  // MPI_Init_thread (funneled: only the main thread calls MPI) and the node-local communicator
  // (MPI_Comm_split_type SHARED) that gives the local rank. Throws UsageError in a build without MPI adapters,
  // DeviceError (exit 3) when no MPI library or adapter is usable here, or when the MPI that was opened sees a
  // different number of ranks than the launcher started (it is not the launcher's MPI). argc/argv are unused:
  // MPI-2 and later initialise without them.
  MpiSession(int* argc, char*** argv);
  // MPI_Finalize, unless abandon() was called.
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  int rank() const;
  int size() const;
  int local_rank() const;   // index among the processes of this node
  int local_size() const;
  const std::string& host() const;

  void allreduce(double* values, std::size_t n, Op op);
  void allreduce(long long* values, std::size_t n, Op op);
  void broadcast(void* data, std::size_t bytes, int root);
  // Every process's text, in rank order, at `root` (empty elsewhere).
  std::vector<std::string> gather(const std::string& text, int root);
  void barrier();

  // Waits that never block past a deadline, over an explicit set of world ranks (`members`, which includes
  // `root`). They poll (MPI_Iprobe, MPI_Test) instead of blocking, so a rank that died or hangs is named:
  // past `timeout_s` seconds they throw MpiWaitTimeout ("rank 1 (node-b) did not answer within 30 s while
  // <what>"), and the session stops finalizing (a peer may never answer): end the job with abort_job().
  // Messages between two ranks arrive in the order they were sent, so every rank must make these calls in
  // the same order as its peers.
  void send_text(int dest, const std::string& text, double timeout_s, const std::string& what);
  std::string receive_text(int source, double timeout_s, const std::string& what);
  // Every member's text at `root`, in the order of `members` (empty elsewhere).
  std::vector<std::string> gather_text(const std::string& text, int root, const std::vector<int>& members,
                                       double timeout_s, const std::string& what);
  // A message from `source` if one has arrived, without waiting.
  std::optional<std::string> try_receive_text(int source);
  // Gives up a wait the caller polls itself: the same MpiWaitTimeout and the same end of finalizing as above.
  [[noreturn]] void wait_expired(const std::vector<int>& missing, double timeout_s, const std::string& what);
  // `root`'s text at every member.
  std::string broadcast_text(const std::string& text, int root, const std::vector<int>& members, double timeout_s,
                             const std::string& what);
  // How timeout messages name a rank ("rank 1 (node-b)"); plain "rank 1" until set.
  void set_rank_labels(std::vector<std::string> labels) { rank_labels_ = std::move(labels); }
  std::string rank_label(int rank) const;
  // After a hang: skip MPI_Finalize, which could block on the peers.
  void abandon() { finalize_ = false; }
  // MPI_Abort(MPI_COMM_WORLD, code): ends every process of the job.
  [[noreturn]] void abort_job(int code);

 private:
  struct State;
  std::unique_ptr<State> state_;
  bool finalize_ = true;
  std::vector<std::string> rank_labels_;
};

}  // namespace linkscope::platform
