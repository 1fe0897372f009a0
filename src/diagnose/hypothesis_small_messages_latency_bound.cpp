// small-messages-latency-bound: below ~64 KiB a copy or collective costs a fixed launch/synchronization latency,
// so its time hardly grows with size and its GB/s says nothing about the links.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "diagnose/expectations.hpp"
#include "diagnose/hypotheses.hpp"
#include "diagnose/measured_summary.hpp"
#include "core/text.hpp"

namespace linkscope::diagnose {

namespace {

struct Series {
  std::string name;
  std::map<std::uint64_t, double> time_us;  // size -> time (first seen)
};

}  // namespace

std::optional<Hypothesis> make_small_messages_latency_bound(const Evidence& evidence) {
  // Judged on GPU-to-GPU copies and collectives: a machine (or a CUDA view of it) with one GPU has neither.
  if (evidence.visible_ordinals().size() < 2 && evidence.model_gpus.size() < 2) return std::nullopt;
  const auto max_small = static_cast<std::uint64_t>(threshold(Threshold::kLatencyRegionMaxBytes));
  const double ratio = threshold(Threshold::kLatencyBoundTimeRatio);
  Hypothesis hypothesis;
  hypothesis.statement = "Small messages are latency-bound: a fixed launch and synchronization cost dominates";
  hypothesis.prediction = fmt::format("from the smallest size up to {} the time per operation grows by less than "
                                      "{} while the size grows at least 16x",
                                      format_bytes(max_small), format_factor(ratio));
  hypothesis.basis = "measurement method: CUDA launch and NCCL synchronization costs of several microseconds";
  hypothesis.needs = "measurements.collectives or measurements.p2p at sizes <= 64 KiB";
  hypothesis.numbers = {{"max_small_bytes", max_small}, {"max_time_ratio", ratio}};
  return hypothesis;
}

void judge_small_messages_latency_bound(const Context& context, Hypothesis& hypothesis) {
  const Evidence& evidence = context.evidence;
  if (!evidence.collectives_measured && !evidence.p2p_measured) {
    return set_untested(hypothesis, "not measured in this run: no collectives and no copies");
  }
  const auto max_small = static_cast<std::uint64_t>(
      hypothesis.numbers.value("max_small_bytes", threshold(Threshold::kLatencyRegionMaxBytes)));
  const double max_ratio = hypothesis.numbers.value("max_time_ratio", threshold(Threshold::kLatencyBoundTimeRatio));

  std::map<std::string, Series> series;
  for (const auto& ref : evidence.collectives) {
    const auto& p = *ref.point;
    if (p.status != "ok" || !p.time || p.bytes == 0 || p.bytes > max_small || p.in_place || ref.what_if) continue;
    const std::string name = ref.op() + (ref.series->graph ? " (graph)" : "");
    auto& s = series[name];
    s.name = name;
    s.time_us.emplace(p.bytes, p.time->median_us);
  }
  for (const auto* point : evidence.p2p) {
    const auto& p = *point;
    if (!copy_ok(p) || p.direction != "uni" || p.bytes == 0 || p.bytes > max_small) continue;
    const double time = p.time_us ? p.time_us->median : static_cast<double>(p.bytes) / (copy_gbps(p) * 1e3);
    const std::string name = fmt::format("{} copy GPU{}->GPU{}", p.method, p.src, p.dst);
    auto& s = series[name];
    s.name = name;
    s.time_us.emplace(p.bytes, time);
  }
  int judged = 0, bound = 0, linear = 0;
  std::string text;
  nlohmann::json numbers = nlohmann::json::array();
  for (const auto& [name, s] : series) {
    if (s.time_us.size() < 2) continue;
    const auto& [small_bytes, small_time] = *s.time_us.begin();
    const auto& [large_bytes, large_time] = *s.time_us.rbegin();
    const double size_ratio = static_cast<double>(large_bytes) / static_cast<double>(small_bytes);
    if (size_ratio < 16 || small_time <= 0) continue;
    const double time_ratio = large_time / small_time;
    ++judged;
    if (time_ratio < max_ratio) ++bound;
    if (time_ratio >= size_ratio / 2) ++linear;
    numbers.push_back({{"series", name}, {"small_bytes", small_bytes}, {"large_bytes", large_bytes},
                       {"time_ratio", time_ratio}});
    if (judged <= 3) {
      text += fmt::format("{}{}: {} at {}, {} at {} ({} for {} the bytes)", text.empty() ? "" : "; ", name,
                          format_time_us(small_time), format_bytes(small_bytes), format_time_us(large_time),
                          format_bytes(large_bytes), format_factor(time_ratio), format_factor(size_ratio));
    }
  }
  for (const auto& l : evidence.latency()) {
    if (l.status == model::PointStatus::kOk && l.latency_ns) {
      text += fmt::format("; {} GPU{}->GPU{} latency {}", l.method, l.src, l.dst, format_time_us(l.latency_ns->median / 1000.0));
      break;
    }
  }
  if (judged == 0) {
    hypothesis.verdict = Verdict::kInconclusive;
    hypothesis.evidence = fmt::format("no series with two sizes <= {} at least 16x apart", format_bytes(max_small)) + text;
    return;
  }
  if (judged > 3) text += fmt::format("; {} more series", judged - 3);
  hypothesis.numbers["series"] = numbers;
  hypothesis.evidence = text;
  hypothesis.verdict = linear > 0 ? Verdict::kRefuted : (bound == judged ? Verdict::kConfirmed : Verdict::kInconclusive);
}

}  // namespace linkscope::diagnose
