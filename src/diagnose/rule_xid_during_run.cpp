// xid-during-run: Xid errors the driver reported while the doctor measured (NVML events, measurements.telemetry),
// each with what its code means (model/xid_codes: the one table) and the step it arrived in.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "diagnose/counter_changes.hpp"
#include "diagnose/rules.hpp"
#include "diagnose/step_points.hpp"
#include "model/xid_codes.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_xid_during_run(const Context& context) {
  const auto& telemetry = context.evidence.run.measurements.telemetry;
  if (!telemetry || telemetry->xid_events.empty()) return std::nullopt;
  Finding finding;
  finding.id = "xid-during-run";
  finding.severity = Severity::kInfo;
  std::map<int, int> count_by_code;
  std::string advice;
  for (const auto& event : telemetry->xid_events) {
    const auto code = model::xid_code(event.xid);
    const Severity severity = code ? code->severity : Severity::kError;  // an unknown Xid is taken seriously
    finding.severity = std::max(finding.severity, severity);
    const std::string where =
        event.step ? "during " + step_label(context.evidence, telemetry->steps[static_cast<std::size_t>(*event.step)].name)
                   : "while no linkscope step ran";
    finding.evidence.push_back(fmt::format("{}: Xid {} at {:.1f} s {}: {}",
                                           telemetry_gpu_label(context.evidence, *telemetry, event.nvml_index),
                                           event.xid, event.t_s, where, model::xid_meaning(event.xid)));
    const bool first_of_code = count_by_code[event.xid]++ == 0;
    if (code && first_of_code) {
      advice += fmt::format("{}Xid {}: usually {}; {}", advice.empty() ? "" : " ", event.xid, code->blame, code->action);
      advice += ".";
    }
    add_gpu_once(finding.gpus, telemetry->cuda_ordinal(event.nvml_index));
  }
  const auto& first = telemetry->xid_events.front();
  finding.title = fmt::format("{} reported Xid {} while linkscope measured",
                              telemetry_gpu_label(context.evidence, *telemetry, first.nvml_index), first.xid);
  finding.explanation = "The NVIDIA driver reported these errors through NVML while the run's steps ran; numbers "
                        "measured around them may be wrong or missing. " + advice;
  const auto code = model::xid_code(first.xid);
  finding.cause = code ? std::string(code->blame) : "see NVIDIA's Xid catalog for this code";
  finding.next_command = "dmesg -T | grep -i xid; nvidia-smi -q -d ECC,ROW_REMAPPER,PERFORMANCE";
  for (const auto& [xid, count] : count_by_code) finding.numbers["xid_counts"][std::to_string(xid)] = count;
  return finding;
}

}  // namespace linkscope::diagnose
