#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/host_comparison.hpp"
#include "model/collectives.hpp"

// The cross-host measurements of `linkscope cluster` (and `doctor` under MPI) as plain data: NCCL sendrecv
// between one GPU of every pair of hosts (a host x host matrix), an all_reduce over every rank, and which host
// or NIC is slow. The Run keeps it under measurements.cross_host (docs/run-schema.md). Host-only.
namespace linkscope::cluster {

struct CrossHostEndpoint {
  int host = 0;  // index into CrossHostResult::hosts
  int rank = 0;  // MPI world rank that measured for the host
  std::optional<int> cuda_device;
  std::string gpu_bdf;
  std::string nic;         // the NIC NCCL's connections went through ("mlx5_0:1", "eth0"); empty when unknown
  std::string nic_reason;  // why it is unknown
  std::string transport;   // "NET/IB/GDRDMA", "NET/Socket", ...
};

struct CrossHostPair {
  int round = 0;
  CrossHostEndpoint a, b;  // a.host < b.host
  std::optional<model::CollectiveSeries> series;  // the sendrecv sweep between the two GPUs
  std::string status = "ok";                     // ok, wrong, timeout, error (the worst of its points)
  std::optional<std::string> reason;
  std::optional<double> bandwidth_gbps;          // sendrecv busbw (= algbw, per direction) at the largest size
  std::uint64_t bytes = 0;                       // that size
};

struct CrossHostResult {
  std::vector<std::string> hosts;
  std::string schedule;                  // "rounds" or "serial"
  std::vector<std::uint64_t> sizes_bytes;
  std::vector<CrossHostPair> pairs;      // in the order they ran
  std::optional<model::CollectiveSeries> all_reduce;  // every rank, one GPU each
  std::string all_reduce_status = "not run";         // ok, wrong, timeout, error, not run
  std::optional<std::string> all_reduce_reason;
  std::vector<std::string> all_reduce_transports;    // per host: "node-a: NET/IB/GDRDMA via mlx5_0:1"
  std::vector<std::string> notes;
};

// Status, bandwidth and size of a pair from its series: the worst point status; the busbw of the largest
// size measured ok (out of place).
void summarize_pair(CrossHostPair& pair);
// The worst point status of a series ("ok" when every point is ok), with the first failing point's reason.
std::pair<std::string, std::optional<std::string>> series_status(const model::CollectiveSeries& series);

struct SlowCulprit {
  std::string kind;  // "host": a host whose pairs are slower than the others; "pair": a pair below its NICs' rate;
                     // "failed": a host every pair of which failed
  int host = -1;     // index into hosts (-1 for "pair")
  int other_host = -1;
  std::string nic;   // the NIC the slow host's pairs went through, when NCCL's log named it
  std::optional<double> measured_gbps;   // the host's median pair bandwidth, or the pair's
  std::optional<double> reference_gbps;  // the other pairs' median, or the NICs' rate in GB/s
  std::string evidence;                  // one sentence with the numbers
};

// A host is slow when the median of its pairs is more than `slow_fraction` below the median of the pairs
// that do not involve it (needs 3 hosts or more); a pair is slow when it reaches less than
// kNicRateShare of the slower NIC's port rate (facts from `hosts`, when they name the NIC NCCL used) and neither
// of its hosts is named already.
inline constexpr double kSlowHostFraction = 0.10;
// NCCL sendrecv reaches about 90% of an InfiniBand or RoCE port's rate; below 70% something is wrong.
inline constexpr double kNicRateShare = 0.70;
std::vector<SlowCulprit> find_slow(const CrossHostResult& result, const HostsComparison* hosts,
                                   double slow_fraction = kSlowHostFraction);

// The port rate of a NIC in GB/s (bytes) from a host's `system`: "mlx5_0:1" -> that port's rate_gbps / 8,
// "eth0" -> speed_mbps / 8000; nothing when unknown.
std::optional<double> nic_rate_gbytes(const nlohmann::json& system, const std::string& nic);

nlohmann::json cross_host_to_json(const CrossHostResult& result, const std::vector<SlowCulprit>& slow);

}  // namespace linkscope::cluster
