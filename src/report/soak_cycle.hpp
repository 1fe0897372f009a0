#pragma once
#include <string>

#include "model/run.hpp"
#include "model/soak.hpp"

// One soak cycle of `doctor --soak` and `cluster --soak` as the soak's rules read it (diagnose/soak_changes): the
// cycle's bandwidths under the Prometheus export's names, and the link facts that must not change while the machines
// run, from each host's facts in a cluster's run.
namespace linkscope::report {

// `run` is the cycle's diagnosed run; its warning and error findings are listed.
model::SoakCycle summarize_soak_cycle(const model::Run& run, int index, double start_s, double seconds);

// "duration reached: ..." when another cycle as long as the last would end after soak.requested_s, else "" (go on).
std::string soak_duration_reached(const model::Soak& soak, double elapsed_s);

}  // namespace linkscope::report
