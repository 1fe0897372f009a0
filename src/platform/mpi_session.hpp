#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

// MPI for multi-process runs (one rank per GPU under mpirun/srun). The only code that includes mpi.h; it is
// compiled with MPI only when CMake found it (LINKSCOPE_HAVE_MPI). Without MPI the session cannot be
// created and says so.
namespace linkscope::platform {

// True when this linkscope was built with MPI.
bool mpi_built_in();

class MpiSession {
 public:
  enum class Op { kSum, kMin, kMax };

  // MPI_Init_thread (funneled: only the main thread calls MPI) and the node-local communicator
  // (MPI_Comm_split_type SHARED) that gives the local rank. Throws UsageError without MPI support.
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
  // After a hang: skip MPI_Finalize, which could block on the peers.
  void abandon() { finalize_ = false; }
  // MPI_Abort(MPI_COMM_WORLD, code): ends every process of the job.
  [[noreturn]] void abort_job(int code);

 private:
  struct State;
  std::unique_ptr<State> state_;
  bool finalize_ = true;
};

}  // namespace linkscope::platform
