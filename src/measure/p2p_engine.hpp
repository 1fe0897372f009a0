#pragma once
#include <functional>
#include <string>

#include "plan/p2p_plan.hpp"
#include "model/p2p.hpp"

namespace linkscope::measure {

// Progress lines for the user (the CLI prints them to stderr); engines never print.
using ProgressCallback = std::function<void(const std::string&)>;

// Measures what `request` asks for: copy curves for every pair, size, method and SM kernel shape (one pair,
// or in bidirectional mode both directions of a pair at once, behind one launch gate), pointer-chase and
// small-CE-copy latency per pair, and pinned host <-> GPU copies. Pairs without peer access become `na` points
// with the reason (or host-staged copies with allow_staged); a failing point is recorded and the rest goes on.
//
// With request.testcases: nvbandwidth's testcases only (measure/testcase_engine.hpp), in results.testcases.
//
// Throws UsageError (exit 2) for a GPU id out of range or buffers larger than free memory (checked with
// cudaMemGetInfo before allocating), DeviceError (exit 3) when there is no usable GPU.
model::P2pResults run_p2p(const plan::P2pRequest& request, const ProgressCallback& progress);

// Name, PCI BDF, UUID, SM count and compute capability of one GPU, for the results.
model::DeviceInfo describe_device(int device);

// Device memory kept free beyond the copy buffers (CUDA context growth, latency chains, counters).
inline constexpr std::uint64_t kContextMarginBytes = 128ull << 20;

}  // namespace linkscope::measure
