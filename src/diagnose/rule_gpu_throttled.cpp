// gpu-throttled: clocks held down by thermal limits, a power brake or a hardware slowdown (warning), or by the
// software power cap (info). Idle, application-clock and sync-boost reasons are normal and ignored.
#include <algorithm>

#include <fmt/format.h>

#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

namespace {
bool serious(const std::string& reason) {
  return reason.find("thermal") != std::string::npos || reason.find("hw_slowdown") != std::string::npos ||
         reason.find("power_brake") != std::string::npos;
}
bool power_cap(const std::string& reason) { return reason.find("power_cap") != std::string::npos; }
}  // namespace

std::optional<Finding> rule_gpu_throttled(const Context& context) {
  Finding finding;
  finding.id = "gpu-throttled";
  Severity severity = Severity::kInfo;
  std::string first;
  for (const auto* gpu_facts : context.evidence.gpus) {
    const model::Gpu& gpu = *gpu_facts;
    std::string reasons;
    bool any_serious = false;
    for (const auto& reason : throttle_reasons(gpu)) {
      if (!serious(reason) && !power_cap(reason)) continue;
      reasons += (reasons.empty() ? "" : ", ") + reason;
      any_serious = any_serious || serious(reason);
    }
    if (reasons.empty()) continue;
    finding.evidence.push_back(fmt::format("{} ({}): {}", gpu.label(), gpu.pci_bdf, reasons));
    if (any_serious) severity = Severity::kWarning;
    if (first.empty()) first = gpu.label();
    if (gpu.cuda_ordinal) finding.gpus.push_back(*gpu.cuda_ordinal);
  }
  if (finding.evidence.empty()) return std::nullopt;
  finding.severity = severity;
  finding.title = fmt::format("{} clocks are throttled", first);
  finding.explanation =
      "A throttled GPU runs its SMs and copy engines slower; SM copies and NCCL kernels on it lose bandwidth and "
      "every collective waits for the slowest rank.";
  finding.cause = severity == Severity::kWarning ? "cooling, power delivery or a hardware slowdown signal"
                                                 : "the software power cap (normal near full load)";
  finding.next_command = "nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER";
  return finding;
}

}  // namespace linkscope::diagnose
