#include "cluster/random_peer_schedule.hpp"

#include <algorithm>
#include <numeric>
#include <random>
#include <set>

#include "core/text.hpp"

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

PeerJudgement judge_by_peer_median(int hosts, const std::vector<PairMeasurement>& measured, double threshold) {
  PeerJudgement judgement;
  std::vector<std::vector<double>> per_host(static_cast<std::size_t>(std::max(hosts, 0)));
  std::vector<double> every;
  judgement.hosts.resize(per_host.size());
  for (std::size_t h = 0; h < per_host.size(); ++h) judgement.hosts[h].host = static_cast<int>(h);
  for (const auto& m : measured) {
    for (int host : {m.pair.first, m.pair.second}) {
      auto& mine = judgement.hosts.at(static_cast<std::size_t>(host));
      if (!m.gbps) {
        ++mine.failed;
        continue;
      }
      ++mine.pairs;
      per_host[static_cast<std::size_t>(host)].push_back(*m.gbps);
    }
    if (m.gbps) every.push_back(*m.gbps);
  }
  if (!every.empty()) judgement.fleet_median_gbps = median_of(every);
  for (std::size_t h = 0; h < per_host.size(); ++h) {
    auto& mine = judgement.hosts[h];
    if (!per_host[h].empty()) mine.median_gbps = median_of(per_host[h]);
    mine.slow = (mine.failed > 0 && mine.pairs == 0) ||
                (mine.median_gbps && judgement.fleet_median_gbps &&
                 *mine.median_gbps < (1 - threshold) * *judgement.fleet_median_gbps);
  }
  return judgement;
}

}  // namespace linkscope::cluster
