#pragma once
#include <cstddef>
#include <optional>
#include <vector>

namespace linkscope {

// Summary of repeated measurements of one quantity (times, bandwidths ...).
struct Summary {
  std::size_t count = 0;
  double median = 0, mean = 0, min = 0, max = 0;
  double stddev = 0;   // sample standard deviation (n - 1); 0 for one sample
  double cv = 0;       // stddev / mean; 0 when the mean is 0
  double p05 = 0, p95 = 0;
  // Distribution-free 95% confidence interval of the median (order statistics of a Binomial(n, 1/2)).
  // With fewer than 6 samples no such interval reaches 95%: it is then [min, max] and ci_is_95 is false.
  double median_ci_low = 0, median_ci_high = 0;
  bool ci_is_95 = false;

  // Half-width of the median's CI relative to the median: max(median - low, high - median) / median.
  double median_ci_relative_halfwidth() const;
};

// Percentile p in [0, 100] with linear interpolation between order statistics (type 7).
// `sorted` must be sorted ascending and non-empty.
double percentile_of_sorted(const std::vector<double>& sorted, double p);

// 1-based order-statistic ranks (low, high) that bracket the median with >= 95% coverage, or {1, n}
// when n < 6. Exact binomial for n <= 1000, normal approximation above.
struct RankInterval {
  std::size_t low = 0, high = 0;
  bool is_95 = false;
};
RankInterval median_ci_ranks(std::size_t n);

// Throws std::invalid_argument for an empty input; NaN values are rejected the same way.
Summary summarize(std::vector<double> values);

// Statistics of one quantity over many machines that a few bad ones cannot move: the median, the median absolute
// deviation (unscaled: 1.4826 x MAD estimates the standard deviation of normal data), p5 and p95 (type 7).
struct RobustSummary {
  std::size_t count = 0;
  double median = 0, mad = 0, p05 = 0, p95 = 0;
};
// Same input rules as summarize().
RobustSummary robust_summarize(std::vector<double> values);

// The robust z-score (x - median) / (1.4826 x MAD); none when MAD is 0 (no spread to measure against).
inline constexpr double kMadToSigma = 1.4826;
std::optional<double> robust_z(double value, double median, double mad);

}  // namespace linkscope
