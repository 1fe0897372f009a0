#pragma once
#include "core/adaptive_sampler.hpp"
#include "core/statistics.hpp"
#include "measure/copy_session.hpp"
#include "measure/launch_gate.hpp"
#include "platform/cuda_resources.hpp"

namespace linkscope::measure {

// A pointer-chase chain (latency_chase.hpp) written into kChaseFootprintBytes of `owner`'s memory.
platform::DeviceBuffer make_chase_chain(int owner, std::uint32_t seed);

// Nanoseconds per dependent load of a kernel on `reader` following `chain` (any GPU's memory the reader can
// access): one untimed lap first (brings the chain into the owner's L2 and the translations into the reader's
// TLBs), then gated samples of kChaseStepsPerSample loads until `policy` is satisfied.
Summary sample_pointer_chase(int reader, const void* chain, LaunchGate& gate, const SamplingPolicy& policy);

// Nanoseconds per copy of `copies` back-to-back copies of `transfer` (small; not verified) on one stream: each
// starts when the previous one has completed, so this is the latency of one small copy.
Summary sample_small_copies(const Transfer& transfer, int copies, LaunchGate& gate, const SamplingSettings& settings);

}  // namespace linkscope::measure
