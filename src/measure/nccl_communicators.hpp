#pragma once
#include <cuda_runtime.h>
#include <nccl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "platform/cuda_resources.hpp"

namespace linkscope::measure {

// One NCCL rank driven by this process: its global rank and its CUDA device.
struct LocalRank {
  int rank = 0;
  int device = 0;
};

struct CommunicatorOptions {
  // nccl-tests 2.19 sets the comm config's nvlinkCentricSched = 1 when built against NCCL >= 2.28; doing
  // the same keeps the numbers comparable (it changes kernel launch attributes on Blackwell and later).
  bool nvlink_centric_sched = true;
  // nccl-tests' -y: operations go to the legacy default (NULL) stream of each GPU instead of a stream of their own.
  bool null_stream = false;
  // nccl-tests' -x: ncclConfig_t.CTAPolicy (NCCL >= 2.27; policies above 1 need >= 2.28). Nothing: not set.
  std::optional<int> cta_policy;
};

// The communicators of this process's ranks, one non-blocking stream per GPU (or the NULL stream). Created inside one
// ncclGroupStart/End (the way nccl-tests and multi-GPU-per-process users do it); destroyed, or aborted after
// a hang, with the object.
class NcclCommunicators {
 public:
  NcclCommunicators(const ncclUniqueId& id, int nranks, std::vector<LocalRank> local, const CommunicatorOptions& options);
  ~NcclCommunicators();
  NcclCommunicators(const NcclCommunicators&) = delete;
  NcclCommunicators& operator=(const NcclCommunicators&) = delete;

  int nranks() const { return nranks_; }
  std::size_t local_count() const { return local_.size(); }
  const LocalRank& local(std::size_t i) const { return local_[i]; }
  ncclComm_t comm(std::size_t i) const { return comms_[i]; }
  cudaStream_t stream(std::size_t i) const { return streams_.empty() ? nullptr : streams_[i]->get(); }
  // What was set in the comm config, for the record ("nvlinkCentricSched=1"), empty when nothing.
  const std::string& config_note() const { return config_note_; }

  // ncclCommAbort on every communicator (after a timeout or an asynchronous error); idempotent.
  void abort() noexcept;
  bool aborted() const { return aborted_; }

 private:
  int nranks_;
  std::vector<LocalRank> local_;
  std::vector<ncclComm_t> comms_;
  std::vector<std::unique_ptr<platform::Stream>> streams_;
  std::string config_note_;
  bool aborted_ = false;
};

// A fresh NCCL unique id (rank 0 calls this and shares it).
ncclUniqueId new_nccl_unique_id();

}  // namespace linkscope::measure
