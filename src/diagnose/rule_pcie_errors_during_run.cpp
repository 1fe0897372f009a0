// pcie-errors-during-run: PCIe error counters of a GPU that grew while the doctor measured (measurements.telemetry):
// NVML's replay counter and the AER counts in sysfs. Replays and correctable errors are retransmissions (the link
// works, slower); non-fatal and fatal errors are lost transactions.
#include <algorithm>

#include <fmt/format.h>

#include "diagnose/counter_changes.hpp"
#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

namespace {

using model::GpuCounter;

bool is_one_of(const std::string& quantity, std::initializer_list<GpuCounter> counters) {
  return std::any_of(counters.begin(), counters.end(), [&](GpuCounter c) { return model::counter_key(c) == quantity; });
}

}  // namespace

std::optional<Finding> rule_pcie_errors_during_run(const Context& context) {
  const auto& telemetry = context.evidence.run.measurements.telemetry;
  if (!telemetry) return std::nullopt;
  Finding finding;
  const auto changes = add_change_evidence(context.evidence, *telemetry, finding, [](const CounterChange& c) {
    return is_one_of(c.quantity, {GpuCounter::kPcieReplay, GpuCounter::kAerCorrectable, GpuCounter::kAerNonfatal,
                                  GpuCounter::kAerFatal});
  });
  if (changes.empty()) return std::nullopt;
  const bool lost = std::any_of(changes.begin(), changes.end(), [](const CounterChange& c) {
    return is_one_of(c.quantity, {GpuCounter::kAerNonfatal, GpuCounter::kAerFatal});
  });
  finding.id = "pcie-errors-during-run";
  finding.severity = lost ? Severity::kError : Severity::kWarning;
  const model::TelemetryGpu* first = telemetry->gpu(changes.front().nvml_index);
  finding.title = fmt::format("{}: PCIe errors while linkscope measured",
                              telemetry_gpu_label(context.evidence, *telemetry, changes.front().nvml_index));
  finding.explanation =
      lost ? "Non-fatal or fatal AER errors mean PCIe transactions were lost: copies over this link (host copies, "
             "PCIe peer traffic, NCCL's SHM and NET paths) may have failed or been retried by software."
           : "The link retransmitted packets (replays, correctable errors): data arrived intact, but every retry costs "
             "bandwidth and latency, so PCIe numbers of this GPU are lower than the link allows.";
  finding.cause = "PCIe signal integrity: riser, slot, retimer or cable, or a link trained above what it holds";
  const std::string bdf = first != nullptr && !first->pci_bdf.empty() ? first->pci_bdf : "<bdf>";
  finding.next_command = fmt::format(
      "nvidia-smi -q -d PCIE -i {0}; sudo lspci -vvv -s {0} | grep -A8 'Advanced Error'; dmesg | grep -i aer", bdf);
  std::int64_t total = 0;
  for (const auto& c : changes) total += c.increase;
  finding.numbers["increase_total"] = total;
  return finding;
}

}  // namespace linkscope::diagnose
