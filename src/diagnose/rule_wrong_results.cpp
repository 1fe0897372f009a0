// wrong-results: a copy or collective delivered data that did not match what was sent (verification counted wrong
// elements). A fast wrong transfer is worth nothing, and it points at hardware (memory, links) or a driver bug.
#include <fmt/format.h>

#include "diagnose/rules.hpp"
#include "core/text.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_wrong_results(const Context& context) {
  const Evidence& evidence = context.evidence;
  Finding finding;
  finding.id = "wrong-results";
  std::vector<int> gpus;
  for (const auto* copy : evidence.p2p) {
    const model::CopyPoint& p = *copy;
    const auto wrong = static_cast<long long>(p.wrong);
    if (p.status != model::PointStatus::kWrong && wrong <= 0) continue;
    finding.evidence.push_back(fmt::format("{} copy GPU{}->GPU{} at {}: {} wrong 4-byte word(s)", p.method, p.src, p.dst,
                                           format_bytes(p.bytes), wrong));
    gpus.push_back(p.src);
    gpus.push_back(p.dst);
  }
  for (const auto& ref : evidence.collectives) {
    const model::CollectivePoint& p = *ref.point;
    const long long wrong = p.wrong.value_or(0);
    if (p.status != "wrong" && wrong <= 0) continue;
    finding.evidence.push_back(fmt::format("{} at {}{}: {} wrong element(s)", ref.op(), format_bytes(p.bytes),
                                           p.in_place ? " in-place" : "", wrong));
  }
  if (finding.evidence.empty()) return std::nullopt;
  std::sort(gpus.begin(), gpus.end());
  gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
  finding.gpus = gpus;
  finding.severity = Severity::kError;
  finding.title = "transfers delivered wrong data";
  finding.explanation = "Verification compares every destination word with the pattern sent. Any mismatch means data "
                        "corruption on the path (memory, NVLink/PCIe, or a driver/NCCL bug); bandwidth numbers of "
                        "those transfers do not count.";
  finding.cause = "hardware error on a GPU or link (check ECC, NVLink CRC and replay counters, Xid events)";
  finding.next_command = "nvidia-smi -q -d ECC; nvidia-smi nvlink -e; dmesg | grep -i xid";
  return finding;
}

}  // namespace linkscope::diagnose
