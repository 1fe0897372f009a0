// directed-pairs-agree: identical GPUs joined by identical links move data at the same speed, so at
// bandwidth-bound sizes all directed pairs of one link type agree closely, per copy method.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "diagnose/expectations.hpp"
#include "diagnose/hypotheses.hpp"
#include "diagnose/measured_summary.hpp"
#include "core/text.hpp"

namespace linkscope::diagnose {

std::optional<Hypothesis> make_directed_pairs_agree(const Evidence& evidence) {
  const std::size_t gpus = !evidence.visible_ordinals().empty() ? evidence.visible_ordinals().size()
                                                                : evidence.model_gpus.size();
  if (gpus < 2) return std::nullopt;
  const double tolerance = threshold(Threshold::kPairsAgree);
  Hypothesis hypothesis;
  hypothesis.statement = fmt::format("All {} directed GPU pairs of one link type move data at the same speed "
                                     "(identical GPUs, identical links, both directions)",
                                     gpus * (gpus - 1));
  hypothesis.prediction = fmt::format("per copy method and link type, directed pairs at >= {} agree within {} "
                                      "(1 - slowest/fastest)",
                                      format_bytes(static_cast<std::uint64_t>(threshold(Threshold::kBandwidthCompareMinBytes))),
                                      format_percent(tolerance));
  hypothesis.basis = evidence.visible_ordinals().empty() ? "model: GPU pairs" : "system: GPU pairs and relations";
  hypothesis.needs = "measurements.p2p";
  hypothesis.numbers = {{"tolerance", tolerance}};
  return hypothesis;
}

void judge_directed_pairs_agree(const Context& context, Hypothesis& hypothesis) {
  const Evidence& evidence = context.evidence;
  if (!evidence.p2p_measured) return set_untested(hypothesis, "not measured in this run: measurements.p2p is absent");
  const auto min_bytes = static_cast<std::uint64_t>(threshold(Threshold::kBandwidthCompareMinBytes));
  const double tolerance = hypothesis.numbers.value("tolerance", threshold(Threshold::kPairsAgree));

  // (method, pair type, bytes) -> points
  std::map<std::tuple<std::string, std::string, std::uint64_t>, std::vector<const model::CopyPoint*>> groups;
  for (const auto* point : evidence.p2p) {
    if (copy_ok(*point) && point->direction == "uni" && point->bytes >= min_bytes && point->src != point->dst) {
      groups[{point->method, evidence.pair_type(point->src, point->dst), point->bytes}].push_back(point);
    }
  }
  // Per (method, type): the largest size with at least two directed pairs.
  std::map<std::pair<std::string, std::string>, std::vector<const model::CopyPoint*>> chosen;
  for (const auto& [key, points] : groups) {
    if (points.size() >= 2) chosen[{std::get<0>(key), std::get<1>(key)}] = points;
  }
  if (chosen.empty()) {
    hypothesis.verdict = Verdict::kInconclusive;
    hypothesis.evidence = fmt::format("fewer than two directed pairs of one type were measured at >= {}",
                                      format_bytes(min_bytes));
    return;
  }
  bool refuted = false, all_within = true;
  std::string text;
  double worst = 0;
  for (const auto& [key, points] : chosen) {
    const auto [lo, hi] = std::minmax_element(points.begin(), points.end(), [](const model::CopyPoint* x, const model::CopyPoint* y) {
      return copy_gbps(*x) < copy_gbps(*y);
    });
    const double spread = relative_gap(copy_gbps(**lo), copy_gbps(**hi));
    double noise = 0;
    if (relative_noise(**lo) && relative_noise(**hi)) {
      noise = std::hypot(*relative_noise(**lo), *relative_noise(**hi));
    }
    worst = std::max(worst, spread);
    if (spread > tolerance) {
      all_within = false;
      if (spread > noise) refuted = true;
    }
    text += fmt::format("{}{} {} at {}: {} to {} over {} directed pairs (spread {}, slowest GPU{}->GPU{})",
                        text.empty() ? "" : "; ", key.first, key.second, format_bytes(points.front()->bytes),
                        format_number(copy_gbps(**lo)), format_gbps(copy_gbps(**hi)), points.size(),
                        format_percent(spread), (*lo)->src, (*lo)->dst);
  }
  hypothesis.numbers["largest_spread"] = worst;
  hypothesis.evidence = text;
  hypothesis.verdict = all_within ? Verdict::kConfirmed : (refuted ? Verdict::kRefuted : Verdict::kInconclusive);
  if (!all_within && !refuted) hypothesis.evidence += "; the spread is within the points' noise";
}

}  // namespace linkscope::diagnose
