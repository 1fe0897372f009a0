#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model/collectives.hpp"
#include "model/isolation.hpp"
#include "model/json_read.hpp"
#include "model/runtime.hpp"

// The Run's `measurements.cross_host` (`linkscope cluster`, `doctor` under MPI): NCCL sendrecv between one GPU of
// every pair of hosts, an all_reduce over every rank, and which host or NIC is slow (src/cluster computes it).
namespace linkscope::model {

struct CrossHostEndpoint {
  int host = 0;  // index into CrossHost::hosts
  int rank = 0;  // MPI world rank that measured for the host
  std::optional<int> cuda_device;
  std::string gpu_bdf;
  std::string nic;         // the NIC NCCL's connections went through ("mlx5_0:1", "eth0"); empty when unknown
  std::string nic_reason;  // why it is unknown
  std::string transport;   // "NET/IB/GDRDMA", "NET/Socket", ...
  std::vector<NcclHint> hints;  // NCCL's HINT lines in this side's log of the pair (2.30.7: IB errors)
};

struct CrossHostPair {
  int round = 0;
  CrossHostEndpoint a, b;  // a.host < b.host
  std::optional<CollectiveSeries> series;  // the sendrecv sweep between the two GPUs
  std::string status = "ok";               // ok, wrong, timeout, error (the worst of its points)
  std::optional<std::string> reason;
  std::optional<double> bandwidth_gbps;    // sendrecv busbw (= algbw, per direction) at the largest size
  std::uint64_t bytes = 0;                 // that size
};

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

struct CrossHost {
  std::vector<std::string> hosts;
  std::string schedule;                  // "rounds" or "serial"
  std::vector<std::uint64_t> sizes_bytes;
  std::vector<CrossHostPair> pairs;      // in the order they ran
  std::optional<CollectiveSeries> all_reduce;  // every rank, one GPU each
  std::string all_reduce_status = "not run";   // ok, wrong, timeout, error, not run
  std::optional<std::string> all_reduce_reason;
  std::vector<std::string> all_reduce_transports;  // per host: "node-a: NET/IB/GDRDMA via mlx5_0:1"
  std::vector<SlowCulprit> slow;
  std::optional<IsolationReport> isolation;  // `cluster --isolate`
  std::vector<std::string> notes;
  nlohmann::json extra;

  int host_index(const std::string& name) const;  // -1 when unknown
  // Host `index`'s name, `fallback` for none (-1) or an index out of range (a saved run of another shape).
  std::string host_name(int index, const std::string& fallback) const;
};

// The host x host matrix (bandwidth_gbps, status) is derived from the pairs when written.
nlohmann::json to_json(const CrossHost& cross_host);
CrossHost cross_host_from_json(const JsonReader& reader);

}  // namespace linkscope::model
