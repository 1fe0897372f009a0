#include "diagnose/soak_changes.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/statistics.hpp"
#include "diagnose/expectations.hpp"

namespace linkscope::diagnose {

namespace {

struct Point {
  int cycle = 0;
  double value = 0;
};

double median_of(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// A least-squares line through the points, and how much of their variation it explains (r squared).
std::optional<MetricChange> drift(const std::string& metric, const std::vector<Point>& points) {
  const double n = static_cast<double>(points.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
  for (const auto& p : points) {
    sx += p.cycle;
    sy += p.value;
    sxx += static_cast<double>(p.cycle) * p.cycle;
    sxy += p.cycle * p.value;
    syy += p.value * p.value;
  }
  const double vx = n * sxx - sx * sx, vy = n * syy - sy * sy;
  if (vx <= 0 || vy <= 0) return std::nullopt;
  const double slope = (n * sxy - sx * sy) / vx;
  const double r2 = std::pow(n * sxy - sx * sy, 2) / (vx * vy);
  const double intercept = (sy - slope * sx) / n;
  const double first = intercept + slope * points.front().cycle, last = intercept + slope * points.back().cycle;
  if (first <= 0) return std::nullopt;
  const double relative = (last - first) / first;
  if (std::fabs(relative) < threshold(Threshold::kSoakDriftShare) || r2 < threshold(Threshold::kSoakDriftFit)) {
    return std::nullopt;
  }
  return MetricChange{metric, "drift", first, last, points.back().cycle, relative};
}

// The split with the largest change between the medians before and after it, when every later cycle keeps the new
// level (closer to it than to the old one).
std::optional<MetricChange> step(const std::string& metric, const std::vector<Point>& points) {
  std::optional<MetricChange> best;
  for (std::size_t split = 1; split < points.size(); ++split) {
    std::vector<double> before, after;
    for (std::size_t i = 0; i < points.size(); ++i) (i < split ? before : after).push_back(points[i].value);
    const double b = median_of(before), a = median_of(after);
    if (b <= 0) continue;
    const double relative = (a - b) / b;
    if (std::fabs(relative) < threshold(Threshold::kSoakStepShare)) continue;
    const bool kept = std::all_of(after.begin(), after.end(), [&](double v) { return std::fabs(v - a) < std::fabs(v - b); });
    const bool steady_before =
        std::all_of(before.begin(), before.end(), [&](double v) { return std::fabs(v - b) < std::fabs(v - a); });
    if (!kept || !steady_before) continue;
    if (!best || std::fabs(relative) > std::fabs(best->relative)) {
      best = MetricChange{metric, "step", b, a, points[split].cycle, relative};
    }
  }
  return best;
}

}  // namespace

std::vector<MetricChange> soak_metric_changes(const model::Soak& soak) {
  std::map<std::string, std::vector<Point>> series;
  for (const auto& cycle : soak.cycles) {
    for (const auto& [metric, value] : cycle.metrics) series[metric].push_back({cycle.index, value});
  }
  std::vector<MetricChange> changes;
  const auto min_cycles = static_cast<std::size_t>(threshold(Threshold::kSoakMinCycles));
  for (const auto& [metric, points] : series) {
    if (points.size() < min_cycles) continue;
    // A step is the sharper description; a drift is reported when no single step explains the change.
    if (auto s = step(metric, points)) {
      changes.push_back(*s);
    } else if (auto d = drift(metric, points)) {
      changes.push_back(*d);
    }
  }
  std::sort(changes.begin(), changes.end(),
            [](const MetricChange& x, const MetricChange& y) { return std::fabs(x.relative) > std::fabs(y.relative); });
  return changes;
}

namespace {

// `each(key, before, after, cycle)` for every key that two consecutive cycles read in `field` (states, counters).
template <typename Value, typename Each>
void consecutive_readings(const model::Soak& soak, std::map<std::string, Value> model::SoakCycle::*field, Each each) {
  for (std::size_t i = 1; i < soak.cycles.size(); ++i) {
    const auto& previous = soak.cycles[i - 1].*field;
    for (const auto& [key, value] : soak.cycles[i].*field) {
      const auto it = previous.find(key);
      if (it != previous.end()) each(key, it->second, value, soak.cycles[i].index);
    }
  }
}

}  // namespace

std::vector<StateChange> soak_state_changes(const model::Soak& soak) {
  std::vector<StateChange> changes;
  consecutive_readings(soak, &model::SoakCycle::states,
                       [&](const std::string& state, const std::string& before, const std::string& after, int cycle) {
                         if (before != after) changes.push_back({state, before, after, cycle});
                       });
  return changes;
}

std::vector<CounterRise> soak_counter_rises(const model::Soak& soak) {
  std::vector<CounterRise> rises;
  consecutive_readings(soak, &model::SoakCycle::counters,
                       [&](const std::string& counter, std::int64_t before, std::int64_t after, int cycle) {
                         if (after > before) rises.push_back({counter, before, after, cycle});
                       });
  return rises;
}

}  // namespace linkscope::diagnose
