// local-copy-reaches-memory-share: a copy inside one GPU (source and destination in its own memory) moves read +
// write traffic of at least a known share of the GPU's memory bandwidth, at sizes larger than its L2 (a copy that
// fits in L2 can be served from the cache and says nothing about the memory).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "core/text.hpp"
#include "diagnose/expectations.hpp"
#include "diagnose/hypotheses.hpp"
#include "model/memory_rate.hpp"

namespace linkscope::diagnose {

std::optional<Hypothesis> make_local_copy_share(const Evidence& evidence) {
  const double share = threshold(Threshold::kLocalCopyShareOfMemoryRate);
  const double tolerance = threshold(Threshold::kHypothesisTolerance);
  Hypothesis hypothesis;
  hypothesis.numbers = {{"expected_share", share}, {"tolerance", tolerance}, {"by_gpu", nlohmann::json::object()}};
  std::string predictions;
  for (int ordinal : evidence.visible_ordinals()) {
    const model::Gpu* gpu = evidence.gpu(ordinal);
    const auto rate = gpu != nullptr ? model::memory_rate(*gpu) : std::nullopt;
    if (!rate) continue;
    // A copy counts its bytes once but reads and writes each: half the memory's traffic is the copy's rate.
    const double predicted = share * rate->gbps / 2.0 * (1.0 - tolerance);
    nlohmann::json entry = {{"memory_gbps", rate->gbps}, {"memory_basis", rate->basis}, {"predicted_min_gbps", predicted}};
    if (const auto l2 = model::l2_cache_bytes(*gpu)) entry["l2_bytes"] = *l2;
    hypothesis.numbers["by_gpu"][std::to_string(ordinal)] = entry;
    predictions += fmt::format("{}GPU{} >= {} ({} x {} ({}) / 2, less {})", predictions.empty() ? "" : "; ", ordinal,
                               format_gbps(predicted), format_percent(share), format_gbps(rate->gbps), rate->basis,
                               format_percent(tolerance));
  }
  if (hypothesis.numbers["by_gpu"].empty()) return std::nullopt;
  hypothesis.statement = fmt::format(
      "A copy inside one GPU moves read + write traffic of about {} of its memory bandwidth", format_percent(share));
  hypothesis.prediction = "local CE copies larger than L2, bytes counted once: " + predictions;
  hypothesis.basis = "system: NVML memory clock x bus width, else the product's datasheet (model/memory_rate)";
  hypothesis.needs = "measurements.p2p (local copies: src = dst, method ce)";
  return hypothesis;
}

void judge_local_copy_share(const Context& context, Hypothesis& hypothesis) {
  const Evidence& evidence = context.evidence;
  if (!evidence.p2p_measured) return set_untested(hypothesis, "not measured in this run: measurements.p2p is absent");
  const auto& by_gpu = hypothesis.numbers.value("by_gpu", nlohmann::json::object());
  // Per GPU: the largest local CE copy measured ok, and the largest one that is larger than L2.
  std::map<int, const model::CopyPoint*> largest, beyond_l2;
  std::map<int, std::uint64_t> largest_in_l2;  // the largest local copy that fits in L2
  for (const auto* point : evidence.p2p) {
    if (point->src != point->dst || point->method != "ce" || point->direction != "uni") continue;
    if (point->status != model::PointStatus::kOk || !point->bandwidth_gbps) continue;
    const std::string key = std::to_string(point->src);
    if (!by_gpu.contains(key)) continue;
    auto& any = largest[point->src];
    if (any == nullptr || point->bytes > any->bytes) any = point;
    const auto l2 = by_gpu[key].value("l2_bytes", std::int64_t{0});
    if (static_cast<std::int64_t>(point->bytes) <= l2) {
      largest_in_l2[point->src] = std::max(largest_in_l2[point->src], point->bytes);
      continue;
    }
    auto& held = beyond_l2[point->src];
    if (held == nullptr || point->bytes > held->bytes) held = point;
  }
  if (largest.empty()) return set_untested(hypothesis, "no local copy (src = dst, CE) measured ok in this run");
  bool all_hold = true;
  bool judged = false;
  std::string text;
  for (const auto& [gpu, point] : largest) {
    const auto& entry = by_gpu[std::to_string(gpu)];
    const auto it = beyond_l2.find(gpu);
    if (it == beyond_l2.end()) {
      text += fmt::format("{}GPU{} local copy {} at {}: fits in L2 ({}), not judged against the memory",
                          text.empty() ? "" : "; ", gpu, format_gbps(point->bandwidth_gbps->median),
                          format_bytes(point->bytes), format_bytes(entry.value("l2_bytes", std::uint64_t{0})));
      continue;
    }
    const model::CopyPoint& p = *it->second;
    const double measured = p.bandwidth_gbps->median;
    const double predicted = entry["predicted_min_gbps"].get<double>();
    const double traffic_share = 2.0 * measured / entry["memory_gbps"].get<double>();
    const bool holds = measured >= predicted;
    all_hold = all_hold && holds;
    judged = true;
    text += fmt::format("{}GPU{} local copy {} at {} = {} read + write, {} of {} (predicted >= {}{})",
                        text.empty() ? "" : "; ", gpu, format_gbps(measured), format_bytes(p.bytes),
                        format_gbps(2.0 * measured), format_percent(traffic_share),
                        format_gbps(entry["memory_gbps"].get<double>()), format_gbps(predicted),
                        holds ? "" : ": BELOW");
    if (const auto in_l2 = largest_in_l2.find(gpu); in_l2 != largest_in_l2.end()) {
      text += fmt::format(" (sizes up to {} fit in L2, {}: not judged)", format_bytes(in_l2->second),
                          format_bytes(entry.value("l2_bytes", std::uint64_t{0})));
    }
    hypothesis.numbers["measured"][std::to_string(gpu)] = {{"gbps", measured}, {"bytes", p.bytes},
                                                         {"traffic_share", traffic_share}};
  }
  hypothesis.verdict = !judged ? Verdict::kInconclusive : all_hold ? Verdict::kConfirmed : Verdict::kRefuted;
  hypothesis.evidence = text;
}

}  // namespace linkscope::diagnose
