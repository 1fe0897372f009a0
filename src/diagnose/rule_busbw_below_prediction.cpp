// busbw-below-prediction: a collective size measured far below the busbw NCCL's own tuning model expects for it
// (model.tuning: the chosen algorithm and protocol's predicted time). Small sizes are left out: there NCCL's model
// is latency, and the measurement is launch overhead (prediction_compare_min_bytes). Series on a GPU with other
// work on it are left to noisy-measurement, which names that work.
#include <algorithm>

#include <fmt/format.h>

#include "core/text.hpp"
#include "diagnose/expectations.hpp"
#include "diagnose/prediction_match.hpp"
#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_busbw_below_prediction(const Context& context) {
  const double share = threshold(Threshold::kBusbwWarnShareOfPrediction);
  const auto min_bytes = static_cast<std::uint64_t>(threshold(Threshold::kPredictionCompareMinBytes));
  Finding finding;
  finding.id = "busbw-below-prediction";
  nlohmann::json slow = nlohmann::json::array();
  double worst = 1.0;
  for (const PredictedPoint& p : predicted_points(context.evidence)) {
    if (p.measured.point->bytes < min_bytes) continue;
    const double predicted = *p.predicted->busbw_gbps;
    const double measured = p.measured.busbw();
    if (predicted <= 0 || measured >= share * predicted) continue;
    const auto& devices = p.measured.series->devices;
    if (std::any_of(devices.begin(), devices.end(), [&](const auto& d) { return context.is_busy(d.cuda_device); })) {
      continue;
    }
    worst = std::min(worst, measured / predicted);
    if (finding.evidence.size() < 12) {
      finding.evidence.push_back(fmt::format("{} at {}: busbw {} measured, {} predicted ({}) = {} of it",
                                             p.measured.op(), format_bytes(p.measured.point->bytes),
                                             format_gbps(measured), format_gbps(predicted),
                                             choice_text(p.predicted->algorithm.value_or("?"),
                                                         p.predicted->protocol.value_or("?"), p.predicted->channels),
                                             format_percent(measured / predicted)));
    }
    slow.push_back({{"op", p.measured.op()},
                    {"bytes", p.measured.point->bytes},
                    {"measured_busbw_gbps", measured},
                    {"predicted_busbw_gbps", predicted}});
    for (const auto& device : p.measured.series->devices) add_gpu_once(finding.gpus, device.cuda_device);
  }
  if (slow.empty()) return std::nullopt;
  if (slow.size() > finding.evidence.size()) finding.evidence.push_back(fmt::format("... {} sizes in all", slow.size()));
  finding.severity = Severity::kWarning;
  finding.title = fmt::format("{} collective size{} below {} of the busbw NCCL's own model predicts (worst {})",
                              slow.size(), slow.size() == 1 ? "" : "s", format_percent(share), format_percent(worst));
  finding.explanation =
      "NCCL's tuner predicts each call's time from its graphs and per-generation bandwidth tables; on a healthy "
      "machine large collectives come close to it. Far below means the links, clocks or GPUs deliver less than "
      "NCCL assumes for this topology.";
  finding.cause = "a degraded or busy link or GPU (see the other findings), throttled clocks, or a topology NCCL "
                  "models as faster than it is (a VM's virtual PCI tree)";
  finding.next_command = "linkscope doctor --profile full   # every pair and op, with telemetry";
  finding.numbers = {{"threshold_share", share}, {"worst_share", worst}, {"slow", std::move(slow)}};
  return finding;
}

}  // namespace linkscope::diagnose
