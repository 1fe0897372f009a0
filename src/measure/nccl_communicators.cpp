#include "measure/nccl_communicators.hpp"

#include <cstdio>

#include <fmt/format.h>

#include "core/error.hpp"
#include "measure/nccl_error.hpp"
#include "platform/cuda_check.hpp"
#include "platform/nccl_library.hpp"

namespace linkscope::measure {

ncclUniqueId new_nccl_unique_id() {
  ncclUniqueId id{};
  nccl_check(platform::nccl_library().GetUniqueId(&id), "ncclGetUniqueId");
  return id;
}

NcclCommunicators::NcclCommunicators(const ncclUniqueId& id, int nranks, std::vector<LocalRank> local,
                                     const CommunicatorOptions& options)
    : nranks_(nranks), local_(std::move(local)), comms_(local_.size(), nullptr) {
  const auto& nccl = platform::nccl_library();
  if (!options.null_stream) {
    for (const auto& l : local_) streams_.push_back(std::make_unique<platform::Stream>(l.device));
  }

  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  const bool use_config = nccl.CommInitRankConfig != nullptr;
  if (use_config && options.nvlink_centric_sched && nccl.version_code >= 22800 && NCCL_VERSION_CODE >= 22800) {
    config.nvlinkCentricSched = 1;
    config_note_ = "nvlinkCentricSched=1";
  }
  if (options.cta_policy) {
    // The loaded library reads the field only from 2.27 on; older ones would silently run without it.
    const int needed = *options.cta_policy > 1 ? 22800 : 22700;
    if (!use_config || nccl.version_code < needed || NCCL_VERSION_CODE < 22700) {
      throw UsageError(fmt::format("-x {} needs NCCL >= {} (ncclConfig_t.CTAPolicy); the loaded NCCL is {}",
                                   *options.cta_policy, needed == 22800 ? "2.28" : "2.27", nccl.version_string()));
    }
#if NCCL_VERSION_CODE >= 22700
    config.CTAPolicy = *options.cta_policy;
#endif
    config_note_ += fmt::format("{}CTAPolicy={}", config_note_.empty() ? "" : " ", *options.cta_policy);
  }
  int previous = 0;
  LINKSCOPE_CUDA_CHECK(cudaGetDevice(&previous));
  ncclResult_t result = nccl.GroupStart();
  if (result == ncclSuccess) {
    for (std::size_t i = 0; i < local_.size() && result == ncclSuccess; ++i) {
      LINKSCOPE_CUDA_CHECK(cudaSetDevice(local_[i].device));
      result = use_config ? nccl.CommInitRankConfig(&comms_[i], nranks_, id, local_[i].rank, &config)
                          : nccl.CommInitRank(&comms_[i], nranks_, id, local_[i].rank);
    }
    const ncclResult_t end = nccl.GroupEnd();
    if (result == ncclSuccess) result = end;
  }
  cudaSetDevice(previous);
  if (result != ncclSuccess) {
    const std::string message = nccl_error_message(result, use_config ? "ncclCommInitRankConfig" : "ncclCommInitRank");
    abort();
    throw DeviceError(fmt::format("NCCL initialisation of {} rank(s) failed: {}", nranks_, message));
  }
}

NcclCommunicators::~NcclCommunicators() {
  if (aborted_) return;
  const auto& nccl = platform::nccl_library();
  for (std::size_t i = 0; i < comms_.size(); ++i) {
    if (comms_[i] == nullptr) continue;
    const ncclResult_t result = nccl.CommDestroy(comms_[i]);
    if (result != ncclSuccess) {
      std::fprintf(stderr, "linkscope: warning: ncclCommDestroy failed: %s\n", nccl.GetErrorString(result));
    }
  }
}

void NcclCommunicators::abort() noexcept {
  if (aborted_) return;
  aborted_ = true;
  const auto& nccl = platform::nccl_library();
  for (auto& comm : comms_) {
    if (comm != nullptr) nccl.CommAbort(comm);
    comm = nullptr;
  }
}

}  // namespace linkscope::measure
