#include "diagnose/run_status.hpp"

#include <functional>

namespace linkscope::diagnose {

namespace {

// The finding that says the driver could not be reached: nothing about the GPUs was judged.
constexpr std::string_view kDriverUnavailable = "driver-unavailable";

void for_each_finding(const model::Run& run, const std::function<void(const model::Finding&)>& visit) {
  for (const auto& finding : run.findings) visit(finding);
  for (const auto& host : run.system.hosts) {
    if (!host.findings) continue;
    for (const auto& finding : *host.findings) visit(finding);
  }
}

}  // namespace

std::optional<model::Severity> worst_severity(const model::Run& run) {
  std::optional<model::Severity> worst;
  for_each_finding(run, [&worst](const model::Finding& finding) {
    if (!worst || finding.severity > *worst) worst = finding.severity;
  });
  return worst;
}

std::string unjudged_reason(const model::Run& run) {
  if (run.config.stopped) return "the run stopped early: " + *run.config.stopped;
  for (const auto& finding : run.findings) {
    if (finding.id == kDriverUnavailable) return "the NVIDIA driver could not be used";
  }
  for (const auto& host : run.system.hosts) {
    if (host.error) return "host " + host.name + " could not be examined: " + *host.error;
  }
  if (run.system.present && run.system.hosts.empty() && run.system.gpus.empty()) return "CUDA shows no GPU";
  return "";
}

NagiosStatus nagios_status(const model::Run& run) {
  bool error = false, warning = false;
  for_each_finding(run, [&](const model::Finding& finding) {
    if (finding.severity == model::Severity::kError && finding.id != kDriverUnavailable) error = true;
    if (finding.severity == model::Severity::kWarning) warning = true;
  });
  if (error) return NagiosStatus::kCritical;
  if (!unjudged_reason(run).empty()) return NagiosStatus::kUnknown;
  return warning ? NagiosStatus::kWarning : NagiosStatus::kOk;
}

}  // namespace linkscope::diagnose
