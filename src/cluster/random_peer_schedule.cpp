#include "cluster/random_peer_schedule.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <set>


namespace linkscope::cluster {

namespace {

constexpr int kReshuffles = 8;

// Fisher-Yates with a plain modulo draw: the order depends on the seed alone, not on the standard library.
void shuffle(std::vector<int>& items, std::mt19937_64& random) {
  for (std::size_t i = items.size(); i > 1; --i) std::swap(items[i - 1], items[random() % i]);
}

}  // namespace

std::vector<std::vector<HostPair>> random_peer_rounds(int hosts, int peers, std::uint64_t seed) {
  std::vector<std::vector<HostPair>> rounds;
  if (hosts < 2 || peers < 1) return rounds;
  const std::size_t wanted = static_cast<std::size_t>(std::min(peers, hosts - 1));
  std::vector<std::set<int>> met(static_cast<std::size_t>(hosts));
  std::mt19937_64 random(seed);
  const auto done = [&] {
    return std::all_of(met.begin(), met.end(), [&](const std::set<int>& m) { return m.size() >= wanted; });
  };
  while (!done()) {
    std::vector<HostPair> best;
    int best_new = -1;
    for (int attempt = 0; attempt < kReshuffles && best_new < hosts / 2; ++attempt) {
      std::vector<int> order(static_cast<std::size_t>(hosts));
      std::iota(order.begin(), order.end(), 0);
      shuffle(order, random);
      if (hosts % 2 == 1) {  // the host that met the most rests (the first such in the shuffled order)
        const auto rest = std::max_element(order.begin(), order.end(), [&](int a, int b) {
          return met[static_cast<std::size_t>(a)].size() < met[static_cast<std::size_t>(b)].size();
        });
        order.erase(rest);
      }
      std::vector<HostPair> round;
      int fresh = 0;
      for (std::size_t i = 0; i + 1 < order.size(); i += 2) {
        const HostPair pair{std::min(order[i], order[i + 1]), std::max(order[i], order[i + 1])};
        fresh += met[static_cast<std::size_t>(pair.first)].count(pair.second) == 0 ? 1 : 0;
        round.push_back(pair);
      }
      if (fresh > best_new) {
        best_new = fresh;
        best = round;
      }
    }
    if (best_new <= 0) break;
    std::sort(best.begin(), best.end());
    for (const auto& [a, b] : best) {
      met[static_cast<std::size_t>(a)].insert(b);
      met[static_cast<std::size_t>(b)].insert(a);
    }
    rounds.push_back(best);
  }
  return rounds;
}

}  // namespace linkscope::cluster
