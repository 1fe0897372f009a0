#pragma once
// What NCCL prints (rank 0, NCCL_DEBUG=INFO, subsystems GRAPH, INIT, TUNING, ENV) from the graph search to
// the end of the communicator's init, without the "host:pid:tid [dev] NCCL INFO " prefix: the search results
// ("Pattern ..." and each channel's GPUs), the "Tree"/"Channel"/"Ring"/"Trees" lines, "P2P Chunksize", the tuning
// table, "threadThresholds" and "N coll channels"; then one "ALGO ..." line per collective and size. Not printed:
// the "comm 0x... rank 0 nRanks ..." line (a pointer) and "Check P2P Type ..." (process layout and NVML).
#include <string>
#include <vector>

#include "topo/communicator_model.hpp"
#include "topo/topology_model.hpp"

namespace linkscope::topo {

std::vector<std::string> nccl_search_log_lines(const TopologyModel& model, const CommunicatorModel& comm);

// "ALGO AllReduce 8 : algo Ring proto LL nchannels 1 time_us 7.800057" (or ": error invalid usage (...) (5)") for
// AllReduce, AllGather, ReduceScatter, Broadcast, Reduce at 2^3 .. 2^33 bytes, as the expected-output harness
// prints them (without its "HARNESS: ").
std::vector<std::string> nccl_algo_lines(const CommunicatorModel& comm);

// Both, one line each; "" when the communicator could not be modelled.
std::string render_search_log(const TopologyModel& model, const CommunicatorModel& comm);

}  // namespace linkscope::topo
