#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cluster/host_comparison.hpp"
#include "core/exit_code.hpp"
#include "model/collectives.hpp"
#include "model/cross_host.hpp"
#include "model/run.hpp"

// The analysis of the cross-host measurements of `linkscope cluster` (and `doctor` under MPI), on the typed
// model::CrossHost: each pair's status and bandwidth, which host or NIC is slow, and what the run's errors and exit
// code make of it. Host-only.
namespace linkscope::cluster {

// Severity of a point's or pair's status: ok 0, wrong 1, error (and anything unknown) 2, timeout 3.
int status_severity(const std::string& status);

// Status, bandwidth and size of a pair from its series: the worst point status; the busbw of the largest
// size measured ok (out of place).
void summarize_pair(model::CrossHostPair& pair);
// The worst point status of a series ("ok" when every point is ok), with the first failing point's reason.
std::pair<std::string, std::optional<std::string>> series_status(const model::CollectiveSeries& series);

// A host is slow when the median of its pairs is more than `slow_fraction` below the median of the pairs
// that do not involve it (needs 3 hosts or more); a pair is slow when it reaches less than
// kNicRateShare of the slower NIC's port rate (model::named_nic_rate of the hosts' facts, when they name the NIC NCCL
// used) and neither of its hosts is named already.
inline constexpr double kSlowHostFraction = 0.10;
// NCCL sendrecv reaches about 90% of an InfiniBand or RoCE port's rate; below 70% something is wrong.
inline constexpr double kNicRateShare = 0.70;
std::vector<model::SlowCulprit> find_slow(const model::CrossHost& result, const HostsComparison* hosts,
                                          double slow_fraction = kSlowHostFraction);

// One error entry per failed pair, and for the all_reduce, in the Run's `errors`.
void record_cross_host_errors(model::Run& run, const model::CrossHost& result);

// 4 when something timed out (an isolation group hung included), 3 for an NCCL/CUDA error, 5 for wrong data, else 0.
int cross_host_exit_code(const model::CrossHost& result);

}  // namespace linkscope::cluster
