// noisy-measurement: numbers that do not describe the idle machine: other processes on a GPU during the run
// (NVML process list) and large-size points whose coefficient of variation is high. Slow numbers that involve a
// busy GPU are quoted here (and not reported again as bandwidth-below-expected).
#include <algorithm>

#include <fmt/format.h>

#include "diagnose/expectations.hpp"
#include "diagnose/measured_summary.hpp"
#include "diagnose/rules.hpp"
#include "core/text.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_noisy_measurement(const Context& context) {
  const Evidence& evidence = context.evidence;
  Finding finding;
  finding.id = "noisy-measurement";

  for (const int gpu : context.busy_gpus) {
    const model::Gpu* facts = evidence.gpu(gpu);
    finding.evidence.push_back(fmt::format("GPU{} ({}) runs other processes: {}", gpu,
                                           facts != nullptr ? facts->pci_bdf : "?", context.processes_text(gpu)));
    finding.gpus.push_back(gpu);
  }
  if (!context.busy_gpus.empty()) {
    for (const auto& judgement : plateau_copies(evidence)) {
      const auto& p = *judgement.point;
      if ((context.is_busy(p.src) || context.is_busy(p.dst)) && judgement.share < judgement.expected_share) {
        finding.evidence.push_back("while it ran: " + copy_line(judgement));
      }
    }
    const auto min_bytes = static_cast<std::uint64_t>(threshold(Threshold::kCollectivePlateauMinBytes));
    for (const auto& point : largest_collective_points(evidence, min_bytes)) {
      finding.evidence.push_back("while it ran: " + collective_line(evidence, point));
    }
  }

  // High variation at sizes where bandwidth, not latency, is measured.
  const double cv_limit = threshold(Threshold::kNoiseCvWarn);
  const auto min_bytes = static_cast<std::uint64_t>(threshold(Threshold::kBandwidthCompareMinBytes));
  std::vector<std::pair<double, std::string>> noisy;
  for (const auto* p : evidence.p2p) {
    if (copy_ok(*p) && p->bytes >= min_bytes && p->cv > cv_limit) {
      noisy.push_back({p->cv, fmt::format("{} {} GPU{}->GPU{} at {}: CV {}", p->method, p->direction, p->src, p->dst,
                                          format_bytes(p->bytes), format_percent(p->cv))});
    }
  }
  for (const auto& ref : evidence.collectives) {
    const auto cv = ref.cv();
    if (ref.ok() && ref.point->bytes >= min_bytes && cv && *cv > cv_limit) {
      noisy.push_back({*cv, fmt::format("{} at {}: CV {}", ref.op(), format_bytes(ref.point->bytes), format_percent(*cv))});
    }
  }
  std::sort(noisy.begin(), noisy.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  if (!noisy.empty()) {
    finding.evidence.push_back(fmt::format("{} point(s) at >= {} vary by more than {} (coefficient of variation):",
                                           noisy.size(), format_bytes(min_bytes), format_percent(cv_limit)));
    for (std::size_t i = 0; i < noisy.size() && i < 3; ++i) finding.evidence.push_back("  " + noisy[i].second);
  }
  if (context.busy_gpus.empty() && noisy.empty()) return std::nullopt;

  // Variation alone is a warning when it is widespread or large; one or two points slightly above the limit on
  // an otherwise quiet run (seen on an idle 2 x H200: one 64 MiB all_reduce at CV 5.2%) are only noted.
  const bool widespread = noisy.size() >= 3 || (!noisy.empty() && noisy.front().first > 2 * cv_limit);
  finding.severity = !context.busy_gpus.empty() || widespread ? Severity::kWarning : Severity::kInfo;
  if (!context.busy_gpus.empty()) {
    finding.title = fmt::format("GPU{} was busy with another process during the run", context.busy_gpus.front());
    finding.cause = fmt::format("another process on GPU{}: {}", context.busy_gpus.front(),
                                context.processes_text(context.busy_gpus.front()));
    finding.explanation =
        "Copies and collectives share SMs, copy engines and memory bandwidth with that process: numbers involving "
        "the busy GPU (typically one direction of its pairs, and every collective) are lower and do not describe "
        "the machine. Rerun when the GPUs are idle.";
  } else {
    finding.title = "measurements at large sizes vary more than an idle machine's";
    finding.cause = "interference (other jobs, clock or power changes) or too few samples";
    finding.explanation = "A high coefficient of variation means single numbers are not reliable; differences "
                          "smaller than the variation are not real.";
  }
  finding.next_command =
      "nvidia-smi --query-compute-apps=pid,process_name,gpu_bus_id,used_memory --format=csv; linkscope doctor";
  return finding;
}

}  // namespace linkscope::diagnose
