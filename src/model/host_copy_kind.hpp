#pragma once
#include <string>

#include "model/p2p.hpp"

// Host copies and host latency rows beyond the copy engine's one-way copy that this p2p engine writes. A p2p that
// measures them (nvbandwidth's testcases) adds "method" ("ce" | "sm") and "bidirectional" to a host point, and a
// host end (-1) to a latency row; the typed points keep such fields (their `extra`), and they are read here only.
namespace linkscope::model {

// The host's end of a latency row (src or dst): pinned host memory, not a GPU (nvbandwidth's
// host_device_latency_sm: GPU `dst` chases pointers in host memory, src = kHostEndpoint).
inline constexpr int kHostEndpoint = -1;
bool is_host_latency(const LatencyPoint& point);

// "ce" (the GPU's copy engine; also when the point does not say) or "sm" (a kernel on the GPU's SMs).
std::string host_copy_method(const HostPoint& point);
// Measured while the other direction ran (nvbandwidth's *_bidirectional_*).
bool host_copy_bidirectional(const HostPoint& point);
// How a host copy was made, apart from its direction: "CE", "SM", "CE both ways", "SM both ways" (the one spelling
// of the report's tables, compare's ids and the diagnosis).
std::string host_copy_kind(const HostPoint& point);

}  // namespace linkscope::model
