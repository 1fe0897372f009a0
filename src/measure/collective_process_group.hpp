#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "plan/nccl_tests_split.hpp"

namespace linkscope::platform {
class MpiSession;
}

namespace linkscope::measure {

// The processes taking part in a collective benchmark: one (driving all its GPUs) or several under MPI.
// Every decision that changes what is enqueued (batch sizes, when to stop sampling) is computed from
// values reduced through this group, so all processes stay in step.
class ProcessGroup {
 public:
  enum class Op { kSum, kMin, kMax };
  virtual ~ProcessGroup() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  virtual void allreduce(std::vector<double>& values, Op op) = 0;
  virtual void allreduce(std::vector<long long>& values, Op op) = 0;
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
  // Every process's text in rank order at rank 0; empty elsewhere.
  virtual std::vector<std::string> gather(const std::string& text) = 0;
  virtual void barrier() = 0;
  // True when a call blocks until every process takes part, with no deadline (MPI collectives): once the
  // communicators were aborted after a hang a peer may never take part again, so no further call is made.
  virtual bool blocks_without_deadline() const { return false; }
};

// This process alone: reductions are the identity.
class SingleProcessGroup final : public ProcessGroup {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void allreduce(std::vector<double>&, Op) override {}
  void allreduce(std::vector<long long>&, Op) override {}
  void broadcast(void*, std::size_t, int) override {}
  std::vector<std::string> gather(const std::string& text) override { return {text}; }
  void barrier() override {}
};

// This process's colour group (NCCL_TESTS_SPLIT*): every process's colour, gathered through the group as
// MPI_Comm_split gathers them (every process of the group must call it); one group of everybody without a rule.
struct ProcessSplit {
  std::vector<int> colors;  // of every process of the group
  coll::ColorGroup mine;
};
ProcessSplit split_processes(const coll::SplitRule& rule, ProcessGroup& group);

// The processes of an MPI job (the session must outlive the group).
std::unique_ptr<ProcessGroup> make_mpi_process_group(platform::MpiSession& session);

}  // namespace linkscope::measure
