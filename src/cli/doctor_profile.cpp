#include "cli/doctor_profile.hpp"

#include "core/error.hpp"

namespace linkscope::cli {

DoctorProfile doctor_profile(const std::string& name) {
  // The collectives DESIGN.md's doctor covers; the ladder uses all_reduce, the op users compare most.
  const std::vector<std::string> ops{"all_reduce", "all_gather", "reduce_scatter", "alltoall", "sendrecv"};
  DoctorProfile p;
  p.name = name;
  p.coll_ops = ops;
  if (name == "quick") {
    // A few sizes per curve: latency-bound (4K, 64K), mid, bandwidth-bound. Short budgets per point.
    p.p2p_min = "4K", p.p2p_max = "256M", p.p2p_factor = "16", p.p2p_max_time = "0.2";
    p.patterns_size = "256M", p.patterns_max_time = "0.2";
    p.coll_min = "1M", p.coll_max = "1G", p.coll_factor = "32", p.coll_max_time = "0.1";
    p.ladder_min = "64M", p.ladder_max = "64M", p.ladder_max_time = "0.1";
  } else if (name == "default") {
    p.p2p_min = "4K", p.p2p_max = "1G", p.p2p_factor = "8", p.p2p_max_time = "0.5";
    p.patterns_size = "256M", p.patterns_max_time = "0.5";
    p.coll_min = "8", p.coll_max = "4G", p.coll_factor = "4", p.coll_max_time = "0.15";
    p.ladder_min = "1M", p.ladder_max = "512M", p.ladder_max_time = "0.15";
  } else if (name == "full") {
    p.p2p_min = "1K", p.p2p_max = "1G", p.p2p_factor = "4", p.p2p_max_time = "1";
    p.p2p_bidirectional = true;
    p.patterns_size = "512M", p.patterns_max_time = "1";
    p.coll_min = "8", p.coll_max = "8G", p.coll_factor = "2", p.coll_max_time = "0.3";
    p.coll_ops = {"all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "sendrecv",
                  "gather", "scatter"};
    p.ladder_min = "1M", p.ladder_max = "1G", p.ladder_max_time = "0.3";
  } else {
    throw UsageError("doctor: unknown profile '" + name + "' (quick, default or full)");
  }
  return p;
}

}  // namespace linkscope::cli
