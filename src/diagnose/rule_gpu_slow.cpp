// gpu-slow: every pair of one GPU is slower than the other pairs (needs three GPUs, so that pairs without that
// GPU exist). Compares directed pairs of one method at one bandwidth-bound size.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "diagnose/expectations.hpp"
#include "diagnose/measured_summary.hpp"
#include "diagnose/rules.hpp"
#include "core/text.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_gpu_slow(const Context& context) {
  const Evidence& evidence = context.evidence;
  const auto min_bytes = static_cast<std::uint64_t>(threshold(Threshold::kBandwidthCompareMinBytes));
  const double fraction = threshold(Threshold::kGpuSlowFraction);

  // (method, bytes) -> directed pair values
  std::map<std::pair<std::string, std::uint64_t>, std::vector<const model::CopyPoint*>> groups;
  for (const auto* point : evidence.p2p) {
    if (copy_ok(*point) && point->direction == "uni" && point->bytes >= min_bytes && point->src != point->dst) {
      groups[{point->method, point->bytes}].push_back(point);
    }
  }
  // Per method, the largest size with the most pairs.
  std::map<std::string, std::vector<const model::CopyPoint*>> chosen;
  for (const auto& [key, points] : groups) {
    auto& current = chosen[key.first];
    if (points.size() >= current.size()) current = points;
  }

  Finding finding;
  finding.id = "gpu-slow";
  std::set<int> slow_gpus;
  for (const auto& [method, points] : chosen) {
    std::set<int> gpus;
    for (const auto* p : points) {
      gpus.insert(p->src);
      gpus.insert(p->dst);
    }
    if (gpus.size() < 3) continue;
    for (const int gpu : gpus) {
      std::vector<double> own, rest;
      for (const auto* p : points) {
        (p->src == gpu || p->dst == gpu ? own : rest).push_back(copy_gbps(*p));
      }
      if (own.empty() || rest.empty()) continue;
      const double own_median = median_of(own);
      const double rest_median = median_of(rest);
      if (own_median >= rest_median * (1.0 - fraction)) continue;
      const auto [lowest, highest] = std::minmax_element(own.begin(), own.end());
      finding.evidence.push_back(fmt::format("{} at {}: GPU{}'s {} directed pairs median {} (range {} - {}), the other "
                                             "{} pairs median {} ({} lower)",
                                             method, format_bytes(points.front()->bytes), gpu, own.size(),
                                             format_gbps(own_median), format_number(*lowest), format_number(*highest),
                                             rest.size(), format_gbps(rest_median),
                                             format_percent(1.0 - own_median / rest_median)));
      slow_gpus.insert(gpu);
    }
  }
  if (slow_gpus.empty()) return std::nullopt;
  finding.gpus.assign(slow_gpus.begin(), slow_gpus.end());
  const int first = finding.gpus.front();
  finding.severity = Severity::kWarning;
  finding.title = fmt::format("GPU{}'s pairs are slower than every other pair", first);
  finding.explanation = "On a board of identical GPUs every pair of one link type should copy at the same speed; "
                        "when all pairs of one GPU are slow, the fault sits at that GPU, not on a link.";
  if (context.is_busy(first)) {
    finding.cause = fmt::format("GPU{} runs other processes: {}; see noisy-measurement", first,
                                context.processes_text(first));
  } else {
    finding.cause = "a degraded GPU: fewer or slower NVLinks, a throttled clock, a PCIe link below its peers', or "
                    "a hardware fault";
  }
  // nvidia-smi -i takes NVML indices or bus ids, not CUDA ordinals: name the GPU by its bus id.
  const model::Gpu* gpu = evidence.gpu(first);
  const std::string id = gpu != nullptr && !gpu->pci_bdf.empty() ? gpu->pci_bdf : std::to_string(first);
  finding.next_command = fmt::format("nvidia-smi nvlink -s -i {0}; nvidia-smi -q -d PERFORMANCE -i {0}", id);
  return finding;
}

}  // namespace linkscope::diagnose
