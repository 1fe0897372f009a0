#include "core/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace linkscope {

double Summary::median_ci_relative_halfwidth() const {
  if (median == 0) return 0;
  return std::max(median - median_ci_low, median_ci_high - median) / std::fabs(median);
}

double percentile_of_sorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) throw std::invalid_argument("percentile of an empty sample");
  const double clamped = std::clamp(p, 0.0, 100.0);
  const double position = clamped / 100.0 * static_cast<double>(sorted.size() - 1);
  const auto below = static_cast<std::size_t>(std::floor(position));
  const std::size_t above = std::min(below + 1, sorted.size() - 1);
  const double fraction = position - static_cast<double>(below);
  return sorted[below] + (sorted[above] - sorted[below]) * fraction;
}

RankInterval median_ci_ranks(std::size_t n) {
  constexpr double kTail = 0.025;
  if (n < 6) return {1, std::max<std::size_t>(n, 1), false};
  std::size_t low = 0;
  if (n <= 1000) {
    // Largest l with P(B <= l - 1) <= 0.025 for B ~ Binomial(n, 1/2), summed in log space.
    const double log_half_n = static_cast<double>(n) * std::log(0.5);
    double cdf = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const double log_pmf = std::lgamma(n + 1.0) - std::lgamma(k + 1.0) - std::lgamma(n - k + 1.0) + log_half_n;
      cdf += std::exp(log_pmf);
      if (cdf > kTail) break;
      low = k + 1;
    }
  } else {
    const double half = static_cast<double>(n) / 2.0;
    low = static_cast<std::size_t>(std::floor(half - 1.959963985 * std::sqrt(static_cast<double>(n)) / 2.0));
  }
  low = std::max<std::size_t>(low, 1);
  const std::size_t high = n - low + 1;
  return {low, high, true};
}

namespace {

void sort_checked(std::vector<double>& values) {
  if (values.empty()) throw std::invalid_argument("summary of an empty sample");
  for (double v : values) {
    if (std::isnan(v)) throw std::invalid_argument("summary of a sample containing NaN");
  }
  std::sort(values.begin(), values.end());
}

}  // namespace

RobustSummary robust_summarize(std::vector<double> values) {
  sort_checked(values);
  RobustSummary s;
  s.count = values.size();
  s.median = percentile_of_sorted(values, 50);
  s.p05 = percentile_of_sorted(values, 5);
  s.p95 = percentile_of_sorted(values, 95);
  std::vector<double> deviations;
  deviations.reserve(values.size());
  for (double v : values) deviations.push_back(std::fabs(v - s.median));
  std::sort(deviations.begin(), deviations.end());
  s.mad = percentile_of_sorted(deviations, 50);
  return s;
}

std::optional<double> robust_z(double value, double median, double mad) {
  if (!(mad > 0)) return std::nullopt;
  return (value - median) / (kMadToSigma * mad);
}

Summary summarize(std::vector<double> values) {
  sort_checked(values);
  Summary s;
  s.count = values.size();
  s.min = values.front();
  s.max = values.back();
  s.median = percentile_of_sorted(values, 50);
  s.p05 = percentile_of_sorted(values, 5);
  s.p95 = percentile_of_sorted(values, 95);
  s.mean = std::accumulate(values.begin(), values.end(), 0.0) / static_cast<double>(s.count);
  if (s.count > 1) {
    double squares = 0;
    for (double v : values) squares += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(squares / static_cast<double>(s.count - 1));
  }
  s.cv = s.mean != 0 ? s.stddev / std::fabs(s.mean) : 0;
  const RankInterval ranks = median_ci_ranks(s.count);
  s.median_ci_low = values[ranks.low - 1];
  s.median_ci_high = values[ranks.high - 1];
  s.ci_is_95 = ranks.is_95;
  return s;
}

}  // namespace linkscope
