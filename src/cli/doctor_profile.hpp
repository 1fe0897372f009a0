#pragma once
#include <string>
#include <vector>

namespace linkscope::cli {

// What a live `doctor` run measures. Each step runs as a child `linkscope` so NCCL's per-process variables and
// CUDA state stay separate, and one failing step is recorded while the others still run.
struct DoctorProfile {
  std::string name;
  // linkscope p2p: every directed pair, CE and SM, verified; latency per pair.
  std::string p2p_min, p2p_max, p2p_factor, p2p_max_time;
  bool p2p_bidirectional = false;  // an extra 512M bidirectional CE run
  // linkscope patterns: every preset the GPU count allows (NUMA sweep where there is more than one node).
  std::string patterns_size, patterns_max_time;
  // linkscope coll, one child per op.
  std::vector<std::string> coll_ops;
  std::string coll_min, coll_max, coll_factor, coll_max_time;
  // linkscope ladder all_reduce.
  std::string ladder_min, ladder_max, ladder_max_time;
};

// "quick" (<= 30 s on 2 GPUs), "default", "full"; throws UsageError for anything else.
DoctorProfile doctor_profile(const std::string& name);

}  // namespace linkscope::cli
