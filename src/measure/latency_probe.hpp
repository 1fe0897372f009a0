#pragma once
#include "core/adaptive_sampler.hpp"
#include "core/statistics.hpp"
#include "measure/copy_session.hpp"
#include "measure/launch_gate.hpp"
#include "plan/p2p_plan.hpp"
#include "platform/cuda_resources.hpp"

namespace linkscope::measure {

// A pointer-chase chain (latency_chase.hpp) of `footprint_bytes` in `order`, written into `owner`'s memory.
platform::DeviceBuffer make_chase_chain(int owner, plan::ChaseOrder order, std::uint64_t footprint_bytes,
                                        std::uint32_t seed);

// The same chain in pinned host memory (host_device_latency_sm), written by the host with the addresses `reader`
// uses for it. Pass device_pointer(reader) of the result to sample_pointer_chase.
platform::PinnedHostBuffer make_host_chase_chain(int reader, plan::ChaseOrder order, std::uint64_t footprint_bytes,
                                                 std::uint32_t seed);

// Nanoseconds per dependent load of a kernel on `reader` following `chain` (any GPU's memory the reader can
// access) with `spec.load`: one untimed lap first (at most kChaseMaxWarmupSteps loads; brings the chain into the
// owner's L2 where it fits and the translations into the reader's TLBs), then gated samples of
// kChaseStepsPerSample loads, each continuing where the last stopped, until `policy` is satisfied.
Summary sample_pointer_chase(int reader, const void* chain, const plan::ChaseSpec& spec, LaunchGate& gate,
                             const SamplingPolicy& policy);

// Nanoseconds per copy of `copies` back-to-back copies of `transfer` (small; not verified) on one stream: each
// starts when the previous one has completed, so this is the latency of one small copy.
Summary sample_small_copies(const Transfer& transfer, int copies, LaunchGate& gate, const SamplingSettings& settings);

}  // namespace linkscope::measure
