#pragma once
#include <cstdint>
#include <functional>
#include <vector>

#include "measure/copy_session.hpp"
#include "measure/p2p_engine.hpp"
#include "model/p2p.hpp"

namespace linkscope::measure {

// A GPU's side of host copies: a buffer holding the pattern of `src_seed`, and one to receive.
struct GpuCopyBuffers {
  const void* src = nullptr;
  std::uint32_t src_seed = 0;
  void* dst = nullptr;
};

// Pinned host memory -> each GPU (h2d) and back (d2h) by that GPU's copy engine, `bytes` per copy, verified on
// the GPU (the host buffer through its mapped device pointer). A failure becomes that point's status.
std::vector<model::HostPoint> measure_host_copies(const std::vector<int>& gpus, std::uint64_t bytes,
                                                 std::uint32_t host_seed, bool verify,
                                                 const std::function<GpuCopyBuffers(int)>& buffers_of, LaunchGate& gate,
                                                 const SamplingSettings& settings, const ProgressCallback& progress);

}  // namespace linkscope::measure
