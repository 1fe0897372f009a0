#pragma once
#include <optional>
#include <string>
#include <vector>

#include "diagnose/context.hpp"

// Host copies (pinned host memory <-> one GPU) set against the GPU's host link, shared by the hypothesis
// host-link-reaches-share and the rule host-link-below-expected: which points count, what is expected of them,
// and how they are quoted.
namespace linkscope::diagnose {

// What a host copy of one kind (method, one way or both at once) is expected to reach on a link kind, as shares of
// the host link rate (expectations table).
struct HostShares {
  double expected = 0;  // the hypothesis' prediction (before its tolerance)
  double warn = 0;      // host-link-below-expected: warning below this
  double error = 0;     // and an error below this
};
HostShares host_shares(LinkRate::Kind link, const std::string& method, bool bidirectional);

// A host copy at the bandwidth plateau with its GPU's host link.
struct HostCopyJudgement {
  const model::HostPoint* point = nullptr;
  LinkRate rate;
  double share = 0;  // measured / rate
  HostShares shares;
};

// Every host copy measured ok at >= copy_plateau_min_bytes of a GPU whose host link rate is known (one per GPU,
// direction, method and one way/both: the largest size).
std::vector<HostCopyJudgement> plateau_host_copies(const Evidence& evidence);

// "H2D CE" / "D2H SM both ways".
std::string host_copy_label(const model::HostPoint& point);
// "GPU0 H2D CE 256 MiB: 55.4 GB/s = 88% of PCIe Gen5 x16 63.0 GB/s".
std::string host_copy_line(const HostCopyJudgement& judgement);
// The link as negotiated: "Gen5 x16 now, max Gen5 x16" (PCIe), "10 active C2C links" (C2C); "" when unknown.
std::string negotiated_link_text(const model::Gpu& gpu);
// Where the host buffer of the copies lived: "NUMA node 1 (--cpu-node 1)", or "not bound to a NUMA node (GPU0 is
// on node 0)".
std::string host_buffer_numa_text(const Evidence& evidence, int cuda_ordinal);

// Latency rows with a host end (model::kHostEndpoint) that measured ok.
std::vector<const model::LatencyPoint*> host_latency_points(const Evidence& evidence);
// The GPU of a host latency row.
int host_latency_gpu(const model::LatencyPoint& point);

}  // namespace linkscope::diagnose
