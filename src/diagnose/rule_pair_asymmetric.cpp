// pair-asymmetric: one direction of a GPU pair is slower than the other at a bandwidth-bound size, by more than
// the threshold and more than the two points' combined noise.
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "diagnose/expectations.hpp"
#include "diagnose/measured_summary.hpp"
#include "diagnose/rules.hpp"
#include "core/text.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_pair_asymmetric(const Context& context) {
  const Evidence& evidence = context.evidence;
  const auto min_bytes = static_cast<std::uint64_t>(threshold(Threshold::kBandwidthCompareMinBytes));
  const double limit = threshold(Threshold::kAsymmetryWarn);

  // (method, low gpu, high gpu, bytes) -> (low->high, high->low)
  using Directions = std::pair<const model::CopyPoint*, const model::CopyPoint*>;
  std::map<std::tuple<std::string, int, int, std::uint64_t>, Directions> both;
  for (const auto* copy : evidence.p2p) {
    const model::CopyPoint& point = *copy;
    if (!copy_ok(point) || point.direction != "uni" || point.bytes < min_bytes || point.src == point.dst) continue;
    const int low = std::min(point.src, point.dst), high = std::max(point.src, point.dst);
    auto& slot = both[{point.method, low, high, point.bytes}];
    (point.src == low ? slot.first : slot.second) = &point;
  }
  // Keep the largest size per (method, pair) with both directions.
  std::map<std::tuple<std::string, int, int>, Directions> largest;
  for (const auto& [key, points] : both) {
    if (points.first == nullptr || points.second == nullptr) continue;
    const auto& [method, low, high, bytes] = key;
    largest[{method, low, high}] = points;  // map order: sizes ascend, so the last write is the largest
  }

  Finding finding;
  finding.id = "pair-asymmetric";
  std::set<int> gpus;
  double worst = 0;
  std::string worst_text;
  for (const auto& [key, points] : largest) {
    const auto& [method, low, high] = key;
    const model::CopyPoint& forward = *points.first;
    const model::CopyPoint& backward = *points.second;
    const double gap = relative_gap(copy_gbps(forward), copy_gbps(backward));
    double noise = 0;
    if (relative_noise(forward) && relative_noise(backward)) {
      noise = std::hypot(*relative_noise(forward), *relative_noise(backward));
    }
    if (gap <= limit || gap <= noise) continue;
    const bool forward_slow = copy_gbps(forward) < copy_gbps(backward);
    const model::CopyPoint& slow = forward_slow ? forward : backward;
    const model::CopyPoint& fast = forward_slow ? backward : forward;
    std::string line = fmt::format("{}: GPU{}->GPU{} {} vs GPU{}->GPU{} {} at {} (slow direction at {} of the fast one)",
                                   method, slow.src, slow.dst, format_gbps(copy_gbps(slow)), fast.src, fast.dst,
                                   format_gbps(copy_gbps(fast)), format_bytes(slow.bytes),
                                   format_percent(copy_gbps(slow) / copy_gbps(fast)));
    if (noise > 0) line += fmt::format("; combined noise {}", format_percent(noise));
    finding.evidence.push_back(line);
    gpus.insert(low);
    gpus.insert(high);
    if (gap > worst) {
      worst = gap;
      worst_text = fmt::format("GPU{}->GPU{}", slow.src, slow.dst);
      finding.numbers = {{"method", method},       {"slow_src", slow.src},
                         {"slow_dst", slow.dst},   {"slow_gbps", copy_gbps(slow)},
                         {"fast_gbps", copy_gbps(fast)}, {"bytes", slow.bytes},
                         {"relative_gap", gap}};
    }
  }
  if (finding.evidence.empty()) return std::nullopt;
  finding.gpus.assign(gpus.begin(), gpus.end());
  finding.severity = Severity::kWarning;
  finding.title = fmt::format("{} is {} slower than the reverse direction", worst_text, format_percent(worst));

  std::string busy;
  for (const int gpu : finding.gpus) {
    if (context.is_busy(gpu)) busy += fmt::format("{}GPU{} runs other processes: {}", busy.empty() ? "" : "; ", gpu,
                                                  context.processes_text(gpu));
  }
  if (!busy.empty()) {
    finding.cause = busy + "; see noisy-measurement";
    finding.explanation = "Both directions of a link run at the same rate, so a one-sided drop comes from an "
                          "endpoint: here a GPU that was busy with another process while it was measured.";
  } else {
    finding.cause = "an endpoint problem on one side: a busy or throttled GPU, a degraded link lane, or a copy "
                    "engine/SM issue on the slow direction's initiating GPU";
    finding.explanation = "NVLink and PCIe carry the same rate in both directions; on a healthy pair the two "
                          "directions agree within 1-2%.";
  }
  const int a = finding.numbers.value("slow_src", finding.gpus.front());
  const int b = finding.numbers.value("slow_dst", finding.gpus.back());
  finding.next_command = fmt::format("linkscope p2p --pairs {}>{},{}>{} -b 256M -e 1G", a, b, b, a);
  return finding;
}

}  // namespace linkscope::diagnose
