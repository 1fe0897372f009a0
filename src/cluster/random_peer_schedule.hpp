#pragma once
#include <cstdint>
#include <vector>

#include "cluster/pair_schedule.hpp"

// `cluster --schedule gpu-to-rack`: each host measured against `peers` random other hosts instead of all of them
// (linear in the hosts, as nvloom's GPU-to-rack test), in rounds of disjoint pairs. The pairs are judged as the
// matrix's are (cluster/cross_host's find_slow: the median of a host's pairs against the median of the pairs without
// it), so one slow peer does not condemn a good host. Pure code: the same seed gives the same rounds on every
// platform (its own shuffle over std::mt19937_64, not std::shuffle).
namespace linkscope::cluster {

// Rounds of disjoint pairs until every host has min(peers, hosts - 1) distinct peers. Each round is a random
// matching; with an odd count the host with the most peers so far rests. Repeated pairs are avoided where a few
// reshuffles can; a round that adds no new peer ends the schedule.
std::vector<std::vector<HostPair>> random_peer_rounds(int hosts, int peers, std::uint64_t seed);

}  // namespace linkscope::cluster
