// ecc-errors: uncorrected ECC errors since boot (volatile: error) or over the GPU's life (aggregate: warning);
// corrected errors since boot are noted (info).
#include <fmt/format.h>

#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_ecc_errors(const Context& context) {
  Finding finding;
  finding.id = "ecc-errors";
  Severity severity = Severity::kInfo;
  std::string first;
  for (const auto* gpu_facts : context.evidence.gpus) {
    const model::Gpu& gpu = *gpu_facts;
    const auto& ecc = gpu.ecc;
    const long long volatile_uncorrected = ecc.volatile_uncorrected.value_or(0);
    const long long aggregate_uncorrected = ecc.aggregate_uncorrected.value_or(0);
    const long long volatile_corrected = ecc.volatile_corrected.value_or(0);
    if (volatile_uncorrected == 0 && aggregate_uncorrected == 0 && volatile_corrected == 0) continue;
    finding.evidence.push_back(fmt::format("{} ({}): uncorrected {} since boot, {} lifetime; corrected {} since boot",
                                           gpu.label(), gpu.pci_bdf, volatile_uncorrected, aggregate_uncorrected,
                                           volatile_corrected));
    if (volatile_uncorrected > 0) {
      severity = Severity::kError;
    } else if (aggregate_uncorrected > 0 && severity < Severity::kWarning) {
      severity = Severity::kWarning;
    }
    if (first.empty()) first = gpu.label();
    if (gpu.cuda_ordinal) finding.gpus.push_back(*gpu.cuda_ordinal);
  }
  if (finding.evidence.empty()) return std::nullopt;
  finding.severity = severity;
  finding.title = fmt::format("{} reports ECC errors", first);
  finding.explanation = severity == Severity::kError
                            ? "An uncorrected error since boot means data on this GPU may have been corrupted; "
                              "results computed on it (including this run's verification) are suspect."
                            : "Past uncorrected or corrected errors point at memory wear; watch the counters and "
                              "row remapping.";
  finding.cause = "memory (HBM/SRAM) faults";
  finding.next_command = "nvidia-smi -q -d ECC,ROW_REMAPPER";
  return finding;
}

}  // namespace linkscope::diagnose
