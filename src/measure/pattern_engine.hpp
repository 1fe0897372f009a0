#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "core/adaptive_sampler.hpp"
#include "measure/p2p_engine.hpp"
#include "plan/p2p_plan.hpp"
#include "model/patterns.hpp"
#include "plan/pattern_spec.hpp"

namespace linkscope::measure {

struct PatternRequest {
  std::vector<plan::PatternPlan> plans;
  std::uint64_t bytes = 256ull << 20;   // per edge and operation
  plan::CopyMethod method = plan::CopyMethod::kCe;
  plan::Initiator initiator = plan::Initiator::kDestination;
  plan::SmKernelShape sm_shape;
  bool verify = true;
  SamplingPolicy sampling;
  int warmup_samples = 1;
  std::uint32_t seed = 0x11C5C0DEu;
  int forced_ops = 0;
  std::optional<int> cpu_node;  // recorded with each result
};

nlohmann::json to_json(const PatternRequest& request);

// Runs every runnable pattern: all its edges (each with its own buffers and stream, verified) start behind
// one launch gate; then each edge not yet measured alone in this call is measured alone for the scaling
// factor. Skipped presets and edges without peer access become `na` results with the reason.
// Throws UsageError (exit 2) for a GPU out of range or buffers larger than free memory, DeviceError (exit 3)
// without a usable GPU.
std::vector<model::PatternResult> run_patterns(const PatternRequest& request, const ProgressCallback& progress);

// Device memory per GPU that the largest runnable pattern needs (one source and one destination buffer per edge).
std::map<int, std::uint64_t> pattern_bytes_per_device(const PatternRequest& request);

}  // namespace linkscope::measure
