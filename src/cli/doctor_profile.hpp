#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace linkscope::cli {

// What a live `doctor` measures, as typed requests. Each step runs as a child `linkscope` (NCCL reads its variables
// once per process, and one failing step is recorded while the others still run), so every request renders the
// exact argv of its child.

// linkscope p2p: every directed pair, CE and SM, verified; latency per pair; host copies.
struct CopyStep {
  std::uint64_t min_bytes = 0, max_bytes = 0;
  unsigned factor = 4;
  double max_time_s = 0.5;
  std::vector<std::string> args() const;
};

// An extra CE run of both directions at once (--full).
struct BidirectionalStep {
  std::uint64_t bytes = 512ull << 20;
  double max_time_s = 1;
  std::vector<std::string> args() const;
};

// linkscope patterns: every preset the GPU count allows, from every NUMA node with CPUs.
struct PatternsStep {
  std::uint64_t bytes = 256ull << 20;
  double max_time_s = 0.5;
  std::vector<std::string> args() const;
};

// linkscope coll OP over a size sweep.
struct CollectiveStep {
  std::string op;
  std::uint64_t min_bytes = 0, max_bytes = 0;
  unsigned factor = 4;
  double max_time_s = 0.15;
  std::vector<std::string> args() const;
};

// linkscope ladder OP, with the hardware facts of this run (for each layer's peak) read from `system_file`.
struct LadderStep {
  std::string op = "all_reduce";
  std::uint64_t min_bytes = 0, max_bytes = 0;
  double max_time_s = 0.15;
  std::vector<std::string> args(const std::string& system_file) const;
};

struct DoctorProfile {
  std::string name;
  CopyStep p2p;
  std::optional<BidirectionalStep> p2p_bidirectional;
  PatternsStep patterns;
  std::vector<CollectiveStep> collectives;
  LadderStep ladder;
};

// "quick" (<= 30 s on 2 GPUs), "default", "full"; throws UsageError for anything else.
DoctorProfile doctor_profile(const std::string& name);

}  // namespace linkscope::cli
