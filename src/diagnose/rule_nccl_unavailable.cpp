// nccl-unavailable: libnccl.so.2 cannot be opened, so no collective, ladder layer or NCCL topology check could run;
// copies were still measured.
#include <fmt/format.h>

#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_nccl_unavailable(const Context& context) {
  const auto& why = context.evidence.run.environment.nccl_unavailable;
  if (!why) return std::nullopt;
  Finding finding;
  finding.id = "nccl-unavailable";
  finding.severity = Severity::kWarning;
  finding.evidence.push_back(*why);
  for (const auto& skipped : context.evidence.run.config.skipped) {  // the doctor's steps that need NCCL
    if (skipped.reason.find(*why) != std::string::npos) finding.evidence.push_back(fmt::format("{}: not run", skipped.step));
  }
  for (const auto& error : context.evidence.run.errors) {  // steps that tried and failed on it
    if (error.message.find(*why) != std::string::npos && error.where != "doctor") {
      finding.evidence.push_back(fmt::format("{}: failed", error.where));
    }
  }
  finding.title = "NCCL cannot be loaded: collectives were not measured";
  finding.explanation =
      "Every NCCL job on this machine will fail to start the same way. Peer copies do not need NCCL and were "
      "measured; busbw, the transports NCCL picks and the path ladder were not.";
  finding.cause = "libnccl.so.2 is not installed or not on the loader path (LD_LIBRARY_PATH, ldconfig)";
  finding.next_command = "ldconfig -p | grep libnccl; LINKSCOPE_NCCL_LIBRARY=/path/to/libnccl.so.2 linkscope doctor";
  return finding;
}

}  // namespace linkscope::diagnose
