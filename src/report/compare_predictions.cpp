#include "report/compare_predictions.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "core/text.hpp"
#include "diagnose/expectations.hpp"
#include "diagnose/prediction_match.hpp"

namespace linkscope::report {

namespace {

std::string choice_of(const model::TuningChoice& c) {
  if (!c.algorithm) return c.error.value_or("none");
  return diagnose::choice_text(*c.algorithm, c.protocol.value_or(""), c.channels);
}

// The lowest measured / predicted busbw from prediction_compare_min_bytes up, with where.
struct Closest {
  double share = 0;
  std::string where;
};

std::optional<Closest> lowest_share(const model::Run& run) {
  const diagnose::Evidence evidence(run);
  const auto min_bytes =
      static_cast<std::uint64_t>(diagnose::threshold(diagnose::Threshold::kPredictionCompareMinBytes));
  std::optional<Closest> lowest;
  for (const auto& p : diagnose::predicted_points(evidence)) {
    if (p.measured.point->bytes < min_bytes || *p.predicted->busbw_gbps <= 0) continue;
    const double share = p.measured.busbw() / *p.predicted->busbw_gbps;
    if (!lowest || share < lowest->share) {
      lowest = Closest{share, fmt::format("{} {}", p.measured.op(), format_bytes(p.measured.point->bytes))};
    }
  }
  return lowest;
}

}  // namespace

void compare_predictions(const model::Run& base, const model::Run& current, Comparison& out) {
  const model::Prediction& a = base.topology.prediction;
  const model::Prediction& b = current.topology.prediction;
  // Choices per op: the sizes both predicted where the algorithm, protocol or channels differ.
  std::map<std::string, std::vector<std::pair<const model::TuningChoice*, const model::TuningChoice*>>> differing;
  std::vector<std::string> ops;
  for (const auto& choice : a.tuning) {
    const model::TuningChoice* other = b.choice(choice.collective, choice.size_bytes);
    if (other == nullptr) continue;
    if (std::find(ops.begin(), ops.end(), choice.collective) == ops.end()) ops.push_back(choice.collective);
    if (choice_of(choice) != choice_of(*other)) differing[choice.collective].push_back({&choice, other});
  }
  for (const auto& op : ops) {
    const auto it = differing.find(op);
    if (it == differing.end()) continue;
    const auto& [first_a, first_b] = it->second.front();
    out.changes.push_back({"prediction",
                           fmt::format("{}: NCCL's choice at {} size(s), first {}", op, it->second.size(),
                                       format_bytes(first_a->size_bytes)),
                           choice_of(*first_a), choice_of(*first_b), std::nullopt, std::nullopt, ChangeKind::kChanged,
                           false});
  }
  const auto share_a = lowest_share(base);
  const auto share_b = lowest_share(current);
  if (share_a && share_b) {
    Change change{"prediction", "lowest measured / predicted busbw",
                  fmt::format("{} ({})", format_percent(share_a->share), share_a->where),
                  fmt::format("{} ({})", format_percent(share_b->share), share_b->where),
                  (share_b->share - share_a->share) / share_a->share, std::nullopt, ChangeKind::kChanged, false};
    if (std::fabs(*change.relative) > out.threshold) {
      change.kind = share_b->share < share_a->share ? ChangeKind::kWorse : ChangeKind::kBetter;
      out.changes.push_back(change);
    }
  }
}

}  // namespace linkscope::report
