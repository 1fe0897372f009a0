#pragma once
#include <utility>
#include <vector>

// The order in which host pairs are measured: rounds of disjoint pairs (the circle method of a round-robin
// tournament), so every unordered pair of hosts is measured exactly once and no host is in two pairs of one
// round. N hosts need N-1 rounds (N rounds when N is odd; one host rests in each).
namespace linkscope::cluster {

using HostPair = std::pair<int, int>;  // first < second

std::vector<std::vector<HostPair>> pair_rounds(int hosts);

// The same pairs one per round (--schedule serial): nothing runs beside a pair, at N(N-1)/2 rounds.
std::vector<std::vector<HostPair>> serial_rounds(int hosts);

}  // namespace linkscope::cluster
