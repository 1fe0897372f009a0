// nccl-choice-differs: NCCL launched a collective with another algorithm, protocol or channel count than its own
// tuning model predicts for this topology and environment (NCCL_DEBUG_SUBSYS=TUNING lines against model.tuning).
// The launch may use fewer channels than the tuner's maximum when the data does not fill them, so fewer channels
// count only from collective_plateau_min_bytes up; more channels than the maximum always count.
#include <fmt/format.h>

#include "core/text.hpp"
#include "diagnose/expectations.hpp"
#include "diagnose/prediction_match.hpp"
#include "diagnose/rules.hpp"

namespace linkscope::diagnose {

std::optional<Finding> rule_nccl_choice_differs(const Context& context) {
  const model::Prediction& prediction = context.evidence.topology.prediction;
  if (prediction.tuning.empty()) return std::nullopt;
  const auto full_from = static_cast<std::uint64_t>(threshold(Threshold::kCollectivePlateauMinBytes));
  Finding finding;
  finding.id = "nccl-choice-differs";
  nlohmann::json differences = nlohmann::json::array();
  int compared = 0;
  for (const model::RuntimeRun* run : predicted_runtime_runs(context)) {
    for (const model::NcclTuningCall& call : run->info.tuning) {
      const model::TuningChoice* predicted = prediction.choice(call.collective, call.size_bytes);
      if (predicted == nullptr || !predicted->algorithm || call.size_bytes == 0) continue;
      ++compared;
      const bool algo = call.algorithm != *predicted->algorithm;
      const bool proto = call.protocol != predicted->protocol.value_or("");
      const bool more = call.channels() > predicted->channels;
      const bool fewer = call.channels() < predicted->channels && call.size_bytes >= full_from;
      if (!algo && !proto && !more && !fewer) continue;
      if (finding.evidence.size() < 12) {
        finding.evidence.push_back(fmt::format(
            "{} {} at {}: NCCL used {}, its model predicts {} ({:.1f} us)", run->context.empty() ? "run" : run->context,
            call.collective, format_bytes(call.size_bytes), choice_text(call.algorithm, call.protocol, call.channels()),
            choice_text(*predicted->algorithm, predicted->protocol.value_or(""), predicted->channels),
            predicted->time_us.value_or(0)));
      }
      differences.push_back({{"context", run->context},
                             {"op", call.collective},
                             {"bytes", call.size_bytes},
                             {"used", {{"algorithm", call.algorithm}, {"protocol", call.protocol},
                                       {"channels", call.channels()}}},
                             {"predicted", {{"algorithm", *predicted->algorithm},
                                            {"protocol", predicted->protocol.value_or("")},
                                            {"channels", predicted->channels}}}});
    }
  }
  if (differences.empty()) return std::nullopt;
  if (differences.size() > finding.evidence.size()) {
    finding.evidence.push_back(fmt::format("... {} differences in all", differences.size()));
  }
  finding.severity = Severity::kWarning;
  finding.title = fmt::format("NCCL chose differently from its own tuning model at {} of {} calls compared",
                              differences.size(), compared);
  finding.explanation =
      "For one communicator on this topology NCCL's default tuner is deterministic: the same graphs, tables and "
      "variables give the same algorithm, protocol and channels. Another choice means NCCL saw a different "
      "machine or configuration than the model: a tuner plugin, a config file, other links or another version.";
  finding.cause = "a tuner plugin (NCCL_TUNER_PLUGIN, libnccl-tuner.so), NCCL_* set in /etc/nccl.conf or "
                  "~/.nccl.conf, an NCCL other than 2.28, or links NCCL detected differently at run time";
  finding.next_command = "linkscope topo --predict all_reduce   # the model's choice per size, beside NCCL's log";
  finding.numbers = {{"compared", compared}, {"differences", std::move(differences)}};
  return finding;
}

}  // namespace linkscope::diagnose
