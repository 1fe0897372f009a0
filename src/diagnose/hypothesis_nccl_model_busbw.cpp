// nccl-model-busbw: NCCL's own tuning model of this topology (model.tuning) predicts, per collective and size, the
// algorithm, protocol, channels and busbw; the measurement should reach at least busbw_warn_share_of_prediction of
// that busbw at every size from prediction_compare_min_bytes up.
#include <algorithm>

#include <fmt/format.h>

#include "core/text.hpp"
#include "diagnose/expectations.hpp"
#include "diagnose/hypotheses.hpp"
#include "diagnose/prediction_match.hpp"

namespace linkscope::diagnose {

namespace {

// "all_reduce: Ring/LL on 1-24 channels to 1 MiB (68.82 GB/s), Ring/Simple on 24 channels from 2 MiB (99.74 ->
// 359.77 GB/s at 8 GiB)": each run of sizes with one algorithm and protocol.
std::string op_summary(const std::string& op, const std::vector<const model::TuningChoice*>& choices) {
  std::vector<std::string> parts;
  for (std::size_t i = 0; i < choices.size();) {
    std::size_t j = i;
    int lo = choices[i]->channels, hi = choices[i]->channels;
    while (j + 1 < choices.size() && choices[j + 1]->algorithm == choices[i]->algorithm &&
           choices[j + 1]->protocol == choices[i]->protocol) {
      ++j;
      lo = std::min(lo, choices[j]->channels);
      hi = std::max(hi, choices[j]->channels);
    }
    const std::string channels = lo == hi ? std::to_string(lo) : fmt::format("{}-{}", lo, hi);
    parts.push_back(fmt::format("{}/{} on {} channels {} {}-{} (busbw {} -> {})", *choices[i]->algorithm,
                                *choices[i]->protocol, channels, i == j ? "at" : "for", format_bytes(choices[i]->size_bytes),
                                format_bytes(choices[j]->size_bytes), format_gbps(*choices[i]->busbw_gbps),
                                format_gbps(*choices[j]->busbw_gbps)));
    i = j + 1;
  }
  return op + ": " + join(parts, ", ");
}

}  // namespace

std::optional<Hypothesis> make_nccl_model_busbw(const Evidence& evidence) {
  const model::Prediction& prediction = evidence.topology.prediction;
  if (prediction.tuning.empty()) return std::nullopt;
  const double share = threshold(Threshold::kBusbwWarnShareOfPrediction);
  const auto min_bytes = static_cast<std::uint64_t>(threshold(Threshold::kPredictionCompareMinBytes));
  std::vector<std::string> ops;
  for (const auto& choice : prediction.tuning) {
    if (std::find(ops.begin(), ops.end(), choice.collective) == ops.end()) ops.push_back(choice.collective);
  }
  std::vector<std::string> lines;
  for (const auto& op : ops) {
    std::vector<const model::TuningChoice*> choices;
    for (const auto& choice : prediction.tuning) {
      if (choice.collective == op && choice.algorithm && choice.busbw_gbps) choices.push_back(&choice);
    }
    if (!choices.empty()) lines.push_back(op_summary(op, choices));
  }
  if (lines.empty()) return std::nullopt;
  Hypothesis hypothesis;
  hypothesis.statement = fmt::format(
      "NCCL's tuner, on {} ranks of this topology with {} channels, picks per size: {}", prediction.n_ranks,
      prediction.coll_channels, join(lines, "; "));
  hypothesis.prediction = fmt::format("every collective size measured from {} reaches >= {} of the busbw predicted "
                                      "for it", format_bytes(min_bytes), format_percent(share));
  hypothesis.basis = fmt::format("model: NCCL {}'s graph search and tuning model of the topology (model.tuning)",
                                 evidence.topology.nccl_version_modelled);
  hypothesis.needs = "measurements.collectives";
  hypothesis.numbers = {{"share", share}, {"min_bytes", min_bytes}};
  return hypothesis;
}

void judge_nccl_model_busbw(const Context& context, Hypothesis& hypothesis) {
  if (!context.evidence.collectives_measured) {
    return set_untested(hypothesis, "not measured in this run: measurements.collectives is absent");
  }
  const double share = hypothesis.numbers.value("share", threshold(Threshold::kBusbwWarnShareOfPrediction));
  const auto min_bytes = hypothesis.numbers.value(
      "min_bytes", static_cast<std::uint64_t>(threshold(Threshold::kPredictionCompareMinBytes)));
  nlohmann::json sizes = nlohmann::json::array();
  const PredictedPoint* worst = nullptr;
  double worst_ratio = 0;
  const auto points = predicted_points(context.evidence);
  for (const PredictedPoint& p : points) {
    if (p.measured.point->bytes < min_bytes || *p.predicted->busbw_gbps <= 0) continue;
    const double ratio = p.measured.busbw() / *p.predicted->busbw_gbps;
    sizes.push_back({{"op", p.measured.op()}, {"bytes", p.measured.point->bytes},
                     {"predicted_busbw_gbps", *p.predicted->busbw_gbps}, {"measured_busbw_gbps", p.measured.busbw()},
                     {"algorithm", p.predicted->algorithm.value_or("")}, {"protocol", p.predicted->protocol.value_or("")},
                     {"channels", p.predicted->channels}});
    if (worst == nullptr || ratio < worst_ratio) {
      worst = &p;
      worst_ratio = ratio;
    }
  }
  hypothesis.numbers["sizes"] = sizes;
  if (worst == nullptr) {
    hypothesis.verdict = Verdict::kInconclusive;
    hypothesis.evidence = fmt::format("no collective of {} ranks measured ok at a predicted size >= {}",
                                      context.evidence.topology.prediction.n_ranks, format_bytes(min_bytes));
    return;
  }
  hypothesis.numbers["worst_share"] = worst_ratio;
  hypothesis.verdict = worst_ratio >= share ? Verdict::kConfirmed : Verdict::kRefuted;
  hypothesis.evidence = fmt::format(
      "{} sizes compared; lowest: {} at {}: busbw {} measured vs {} predicted ({}) = {}", sizes.size(),
      worst->measured.op(), format_bytes(worst->measured.point->bytes), format_gbps(worst->measured.busbw()),
      format_gbps(*worst->predicted->busbw_gbps),
      choice_text(worst->predicted->algorithm.value_or("?"), worst->predicted->protocol.value_or("?"),
                  worst->predicted->channels),
      format_percent(worst_ratio));
}

}  // namespace linkscope::diagnose
