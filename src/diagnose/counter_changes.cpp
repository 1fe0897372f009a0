#include "diagnose/counter_changes.hpp"

#include <fmt/format.h>

#include "diagnose/rules.hpp"
#include "diagnose/step_points.hpp"

namespace linkscope::diagnose {

namespace {

const model::GpuCounters* after_of(const model::TelemetryStep& step, int nvml_index) {
  for (const auto& g : step.gpus) {
    if (g.nvml_index == nvml_index && g.after) return &*g.after;
  }
  return nullptr;
}

const model::GpuCounters* before_of(const model::TelemetryStep& step, int nvml_index) {
  for (const auto& g : step.gpus) {
    if (g.nvml_index == nvml_index) return &g.before;
  }
  return nullptr;
}

void add(std::vector<CounterChange>& out, const model::Telemetry& t, int nvml_index, const model::GpuCounters& from,
         const model::GpuCounters& to, std::optional<int> step, std::optional<int> previous) {
  for (const auto& increase : model::counter_increases(from, to)) {
    out.push_back({nvml_index, t.cuda_ordinal(nvml_index), increase.quantity, increase.link, increase.increase, step,
                   previous});
  }
}

}  // namespace

std::vector<CounterChange> counter_changes(const model::Telemetry& t) {
  std::vector<CounterChange> out;
  for (std::size_t i = 0; i < t.steps.size(); ++i) {
    const int index = static_cast<int>(i);
    for (const auto& g : t.steps[i].gpus) {
      if (g.after) add(out, t, g.nvml_index, g.before, *g.after, index, std::nullopt);
      if (i + 1 >= t.steps.size()) continue;
      const model::GpuCounters* end = after_of(t.steps[i], g.nvml_index);
      const model::GpuCounters* next = before_of(t.steps[i + 1], g.nvml_index);
      if (end != nullptr && next != nullptr) add(out, t, g.nvml_index, *end, *next, std::nullopt, index);
    }
  }
  return out;
}

std::string telemetry_gpu_label(const Evidence& evidence, const model::Telemetry& t, int nvml_index) {
  const model::TelemetryGpu* gpu = t.gpu(nvml_index);
  const std::string bdf = gpu != nullptr && !gpu->pci_bdf.empty() ? " (" + gpu->pci_bdf + ")" : "";
  if (gpu != nullptr && gpu->cuda_ordinal) {
    if (const model::Gpu* facts = evidence.gpu(*gpu->cuda_ordinal)) return facts->label() + bdf;
    return fmt::format("GPU{}{}", *gpu->cuda_ordinal, bdf);
  }
  return fmt::format("NVML GPU {}{}", nvml_index, bdf);
}

std::string change_where(const Evidence& evidence, const model::Telemetry& t, const CounterChange& change) {
  if (change.step) return "during " + step_label(evidence, t.steps[static_cast<std::size_t>(*change.step)].name);
  const auto previous = static_cast<std::size_t>(change.previous_step.value_or(0));
  const std::string next = previous + 1 < t.steps.size() ? t.steps[previous + 1].name : "the end";
  return fmt::format("between {} and {}", t.steps[previous].name, next);
}

std::string quantity_words(const std::string& quantity) {
  for (std::size_t i = 0; i < model::kGpuCounterCount; ++i) {
    const auto counter = static_cast<model::GpuCounter>(i);
    if (model::counter_key(counter) == quantity) return std::string(model::counter_words(counter));
  }
  for (std::size_t i = 0; i < model::kLinkCounterCount; ++i) {
    const auto counter = static_cast<model::LinkCounter>(i);
    if (model::link_counter_quantity(counter) == quantity) return std::string(model::link_counter_words(counter));
  }
  return quantity;
}

std::vector<CounterChange> add_change_evidence(const Evidence& evidence, const model::Telemetry& telemetry,
                                               model::Finding& finding,
                                               const std::function<bool(const CounterChange&)>& keep) {
  std::vector<CounterChange> written;
  for (const auto& change : counter_changes(telemetry)) {
    if (!keep(change)) continue;
    const std::string link = change.link ? fmt::format(" link {}", *change.link) : "";
    finding.evidence.push_back(fmt::format("{}{}: {} +{} {}", telemetry_gpu_label(evidence, telemetry, change.nvml_index),
                                           link, quantity_words(change.quantity), change.increase,
                                           change_where(evidence, telemetry, change)));
    add_gpu_once(finding.gpus, change.cuda_ordinal);
    written.push_back(change);
  }
  return written;
}

}  // namespace linkscope::diagnose
