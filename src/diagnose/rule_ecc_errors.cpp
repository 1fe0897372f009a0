// ecc-errors: the GPU's memory. Uncorrected ECC errors since boot (volatile: error) or over the GPU's life
// (aggregate: warning); corrected errors since boot are noted (info). With the doctor's telemetry also: ECC counts
// that grew while it measured (uncorrected: error, corrected: warning), pages retired for double-bit errors or
// waiting for a reboot, rows remapped after uncorrectable errors or waiting for a reset (warning), and a failed row
// remapping (error: the GPU needs service).
#include <algorithm>

#include <fmt/format.h>

#include "core/text.hpp"
#include "diagnose/counter_changes.hpp"
#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

namespace {

using model::GpuCounter;
using model::GpuFlag;

// The finding being gathered: its severity and the first GPU it names (the title's).
struct Gathered {
  Finding finding;
  Severity severity = Severity::kInfo;
  std::string first;

  void add(std::string line, const std::string& label, std::optional<int> ordinal, Severity level) {
    finding.evidence.push_back(std::move(line));
    severity = std::max(severity, level);
    if (first.empty()) first = label;
    add_gpu_once(finding.gpus, ordinal);
  }
};

void from_discovery(const Context& context, Gathered& out) {
  for (const auto* gpu_facts : context.evidence.gpus) {
    const model::Gpu& gpu = *gpu_facts;
    const auto& ecc = gpu.ecc;
    const long long volatile_uncorrected = ecc.volatile_uncorrected.value_or(0);
    const long long aggregate_uncorrected = ecc.aggregate_uncorrected.value_or(0);
    const long long volatile_corrected = ecc.volatile_corrected.value_or(0);
    if (volatile_uncorrected == 0 && aggregate_uncorrected == 0 && volatile_corrected == 0) continue;
    const Severity level = volatile_uncorrected > 0    ? Severity::kError
                           : aggregate_uncorrected > 0 ? Severity::kWarning
                                                       : Severity::kInfo;
    out.add(fmt::format("{} ({}): uncorrected {} since boot, {} lifetime; corrected {} since boot", gpu.label(),
                        gpu.pci_bdf, volatile_uncorrected, aggregate_uncorrected, volatile_corrected),
            gpu.label(), gpu.cuda_ordinal, level);
  }
}

void increases_during_run(const Context& context, const model::Telemetry& t, Gathered& out) {
  const std::string corrected(model::counter_key(GpuCounter::kEccVolatileCorrected));
  const std::string uncorrected(model::counter_key(GpuCounter::kEccVolatileUncorrected));
  const auto changes = add_change_evidence(context.evidence, t, out.finding, [&](const CounterChange& c) {
    return c.quantity == corrected || c.quantity == uncorrected;
  });
  for (const auto& change : changes) {
    out.severity = std::max(out.severity, change.quantity == uncorrected ? Severity::kError : Severity::kWarning);
    if (out.first.empty()) out.first = telemetry_gpu_label(context.evidence, t, change.nvml_index);
  }
}

// The last counters read for each GPU: the state of retired pages and remapped rows as the run ended.
std::vector<std::pair<int, const model::GpuCounters*>> last_counters(const model::Telemetry& t) {
  std::vector<std::pair<int, const model::GpuCounters*>> out;
  for (const auto& gpu : t.gpus) {
    const model::GpuCounters* last = nullptr;
    for (const auto& step : t.steps) {
      for (const auto& g : step.gpus) {
        if (g.nvml_index == gpu.nvml_index) last = g.after ? &*g.after : &g.before;
      }
    }
    if (last != nullptr) out.emplace_back(gpu.nvml_index, last);
  }
  return out;
}

void memory_repair_state(const Context& context, const model::Telemetry& t, Gathered& out) {
  for (const auto& [nvml_index, counters] : last_counters(t)) {
    const model::GpuCounters& c = *counters;
    std::vector<std::string> facts;
    Severity level = Severity::kInfo;
    if (c[GpuCounter::kRetiredPagesDoubleBit].value_or(0) > 0) {
      facts.push_back(fmt::format("{} page(s) retired for double-bit errors", *c[GpuCounter::kRetiredPagesDoubleBit]));
      level = std::max(level, Severity::kWarning);
    }
    if (c[GpuFlag::kRetiredPagesPending].value_or(false)) {
      facts.push_back("pages wait for a reboot to be retired");
      level = std::max(level, Severity::kWarning);
    }
    if (c[GpuCounter::kRemappedRowsUncorrectable].value_or(0) > 0) {
      facts.push_back(
          fmt::format("{} row(s) remapped after uncorrectable errors", *c[GpuCounter::kRemappedRowsUncorrectable]));
      level = std::max(level, Severity::kWarning);
    }
    if (c[GpuFlag::kRemappedRowsPending].value_or(false)) {
      facts.push_back("a row remapping waits for a GPU reset");
      level = std::max(level, Severity::kWarning);
    }
    if (c[GpuFlag::kRemappedRowsFailure].value_or(false)) {
      facts.push_back("a row remapping failed (no spare row left)");
      level = Severity::kError;
    }
    if (facts.empty()) continue;
    const std::string gpu = telemetry_gpu_label(context.evidence, t, nvml_index);
    out.add(gpu + ": " + join(facts, "; "), gpu, t.cuda_ordinal(nvml_index), level);
  }
}

}  // namespace

std::optional<Finding> rule_ecc_errors(const Context& context) {
  Gathered out;
  from_discovery(context, out);
  if (const auto& telemetry = context.evidence.run.measurements.telemetry) {
    increases_during_run(context, *telemetry, out);
    memory_repair_state(context, *telemetry, out);
  }
  Finding& finding = out.finding;
  if (finding.evidence.empty()) return std::nullopt;
  finding.id = "ecc-errors";
  finding.severity = out.severity;
  finding.title = fmt::format("{} reports ECC errors or memory repairs", out.first);
  finding.explanation = out.severity == Severity::kError
                            ? "An uncorrected error, or a row remapping that failed, means data on this GPU may have "
                              "been corrupted; results computed on it (including this run's verification) are suspect."
                            : "Past uncorrected or corrected errors and repaired memory point at memory wear; watch "
                              "the counters and row remapping, and reset the GPU where a repair is pending.";
  finding.cause = "memory (HBM/SRAM) faults";
  finding.next_command = "nvidia-smi -q -d ECC,ROW_REMAPPER,PAGE_RETIREMENT";
  return std::move(finding);
}

}  // namespace linkscope::diagnose
