#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cluster/pair_schedule.hpp"

// `cluster --schedule gpu-to-rack`: each host measured against `peers` random other hosts instead of all of them
// (linear in the hosts, as nvloom's GPU-to-rack test), in rounds of disjoint pairs, and judged by the median of its
// pairs against the median of every pair, so one slow peer does not condemn a good host. Pure code: the same seed
// gives the same rounds on every platform (its own shuffle over std::mt19937_64, not std::shuffle).
namespace linkscope::cluster {

// Rounds of disjoint pairs until every host has min(peers, hosts - 1) distinct peers. Each round is a random
// matching; with an odd count the host with the most peers so far rests. Repeated pairs are avoided where a few
// reshuffles can; a round that adds no new peer ends the schedule.
std::vector<std::vector<HostPair>> random_peer_rounds(int hosts, int peers, std::uint64_t seed);

struct PairMeasurement {
  HostPair pair;
  std::optional<double> gbps;  // empty: the pair failed or timed out
};

struct PeerMedian {
  int host = 0;
  std::optional<double> median_gbps;  // of its measured pairs; empty when every pair failed
  int pairs = 0;                      // measured
  int failed = 0;
  bool slow = false;                  // below (1 - threshold) x the fleet median, or every pair failed
};

struct PeerJudgement {
  std::optional<double> fleet_median_gbps;  // of every measured pair
  std::vector<PeerMedian> hosts;            // by host index
};

// `threshold`: the share below the fleet median that makes a host slow (0.1: 10% below).
PeerJudgement judge_by_peer_median(int hosts, const std::vector<PairMeasurement>& measured, double threshold);

}  // namespace linkscope::cluster
