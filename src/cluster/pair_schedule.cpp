#include "cluster/pair_schedule.hpp"

#include <algorithm>
#include <numeric>

namespace linkscope::cluster {

std::vector<std::vector<HostPair>> pair_rounds(int hosts) {
  std::vector<std::vector<HostPair>> rounds;
  if (hosts < 2) return rounds;
  const int slots = hosts % 2 == 0 ? hosts : hosts + 1;  // slot `hosts` (when odd) is the resting place
  std::vector<int> circle(static_cast<std::size_t>(slots));
  std::iota(circle.begin(), circle.end(), 0);
  for (int round = 0; round < slots - 1; ++round) {
    std::vector<HostPair> pairs;
    for (int i = 0; i < slots / 2; ++i) {
      const int a = circle[static_cast<std::size_t>(i)];
      const int b = circle[static_cast<std::size_t>(slots - 1 - i)];
      if (a >= hosts || b >= hosts) continue;
      pairs.push_back({std::min(a, b), std::max(a, b)});
    }
    std::sort(pairs.begin(), pairs.end());
    rounds.push_back(pairs);
    // Keep slot 0 fixed and turn the others by one.
    std::rotate(circle.begin() + 1, circle.end() - 1, circle.end());
  }
  return rounds;
}

std::vector<std::vector<HostPair>> serial_rounds(int hosts) {
  std::vector<std::vector<HostPair>> rounds;
  for (int a = 0; a < hosts; ++a) {
    for (int b = a + 1; b < hosts; ++b) rounds.push_back({{a, b}});
  }
  return rounds;
}

}  // namespace linkscope::cluster
