#include "report/telemetry_tables.hpp"

#include <fmt/format.h>

#include "core/text.hpp"
#include "model/xid_codes.hpp"

namespace linkscope::report {

namespace {

std::string seconds(double s) { return fmt::format("{:.1f} s", s); }

std::string gpu_label(const model::Telemetry& t, int nvml_index) {
  const auto ordinal = t.cuda_ordinal(nvml_index);
  return ordinal ? fmt::format("GPU{} (NVML {})", *ordinal, nvml_index) : fmt::format("NVML {}", nvml_index);
}

std::string step_name(const model::Telemetry& t, int index) {
  return index >= 0 && static_cast<std::size_t>(index) < t.steps.size() ? t.steps[static_cast<std::size_t>(index)].name
                                                                        : fmt::format("step {}", index);
}

// "GPU0 (NVML 0): pcie_replay +3, nvlink_crc_flit link 4 +12"; "none" when nothing grew; what was not read.
std::string step_counters(const model::Telemetry& t, const model::TelemetryStep& step) {
  std::vector<std::string> parts;
  bool unread = false;
  for (const auto& gpu : step.gpus) {
    if (!gpu.after) {
      unread = true;
      continue;
    }
    std::vector<std::string> grew;
    for (const auto& increase : model::counter_increases(gpu.before, *gpu.after)) {
      grew.push_back(increase.link ? fmt::format("{} link {} +{}", increase.quantity, *increase.link, increase.increase)
                                   : fmt::format("{} +{}", increase.quantity, increase.increase));
    }
    if (!grew.empty()) parts.push_back(gpu_label(t, gpu.nvml_index) + ": " + join(grew, ", "));
  }
  std::string out = parts.empty() ? "none" : join(parts, "; ");
  if (unread) out += step.end_s ? " (some GPUs not read after the step)" : " (the step did not finish)";
  return out;
}

}  // namespace

Table telemetry_steps_table(const model::Telemetry& t) {
  Table table{{"step", "started", "took", "error counters that grew"}, {}};
  for (const auto& step : t.steps) {
    table.rows.push_back({text_cell(step.name), number_cell(seconds(step.start_s)),
                          number_cell(step.end_s ? seconds(*step.end_s - step.start_s) : "did not finish"),
                          text_cell(step.gpus.empty() ? "not read" : step_counters(t, step))});
  }
  return table;
}

Table telemetry_processes_table(const model::Telemetry& t) {
  Table table{{"pid", "name", "GPU", "whose", "seen", "during steps"}, {}};
  for (const auto& p : t.processes) {
    std::vector<std::string> steps;
    for (const int s : p.steps) steps.push_back(step_name(t, s));
    if (p.samples_outside_steps > 0) steps.push_back(fmt::format("{} pass(es) between steps", p.samples_outside_steps));
    const std::string whose = p.own() ? p.owner : p.visible ? "not the doctor's" : "not the doctor's (pid of another namespace)";
    Cell owner = text_cell(whose);
    if (!p.own()) owner.css_class = "sev-warning";
    table.rows.push_back({number_cell(std::to_string(p.pid)), text_cell(p.name.empty() ? "?" : p.name),
                          text_cell(gpu_label(t, p.nvml_index)), owner,
                          number_cell(fmt::format("{} to {}", seconds(p.first_seen_s), seconds(p.last_seen_s)),
                                      fmt::format("{} pass(es)", p.samples)),
                          text_cell(steps.empty() ? "none" : join(steps, ", "))});
  }
  return table;
}

Table telemetry_xid_table(const model::Telemetry& t) {
  Table table{{"time", "GPU", "Xid", "meaning", "during step"}, {}};
  for (const auto& e : t.xid_events) {
    table.rows.push_back({number_cell(seconds(e.t_s)), text_cell(gpu_label(t, e.nvml_index)),
                          number_cell(std::to_string(e.xid)), text_cell(model::xid_meaning(e.xid)),
                          text_cell(e.step ? step_name(t, *e.step) : "between steps")});
  }
  return table;
}

std::string telemetry_summary(const model::Telemetry& t) {
  if (!t.unavailable.empty() && t.gpus.empty()) return "Nothing could be watched during the run: " + t.unavailable + ".";
  std::string out = fmt::format("Sampled {} GPU(s) {} time(s), every {} over {}; the sampler thread used {} of CPU.",
                                t.gpus.size(), t.passes, format_time_us(t.interval_s * 1e6), seconds(t.duration_s),
                                fmt::format("{:.2f} s", t.cost.cpu_seconds));
  if (!t.unavailable.empty()) out += " Not watched: " + t.unavailable + ".";
  out += t.xid_unavailable.empty() ? " Xid events were watched." : " Xid events were not watched: " + t.xid_unavailable + ".";
  std::vector<std::string> missing;
  for (const auto& gpu : t.gpus) {
    for (const auto& [quantity, reason] : gpu.unavailable) {
      missing.push_back(fmt::format("{} {}: {}", gpu_label(t, gpu.nvml_index), quantity, reason));
    }
  }
  if (!missing.empty()) out += " Unavailable: " + join(missing, "; ") + ".";
  return out;
}

}  // namespace linkscope::report
