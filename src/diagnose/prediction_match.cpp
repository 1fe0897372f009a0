#include "diagnose/prediction_match.hpp"

#include <map>
#include <tuple>

#include <fmt/format.h>

#include "diagnose/nccl_env.hpp"

namespace linkscope::diagnose {

std::vector<PredictedPoint> predicted_points(const Evidence& evidence) {
  const model::Prediction& prediction = evidence.topology.prediction;
  std::vector<PredictedPoint> out;
  if (prediction.tuning.empty()) return out;
  // (series, bytes) -> index in out, so an out-of-place point replaces an in-place one of the same size.
  std::map<std::pair<const model::CollectiveSeries*, std::uint64_t>, std::size_t> seen;
  for (const CollectiveRef& ref : evidence.collectives) {
    if (ref.what_if || !ref.ok() || ref.series->nranks != prediction.n_ranks) continue;
    const model::TuningChoice* predicted = prediction.choice(ref.op(), ref.point->bytes);
    if (predicted == nullptr || !predicted->busbw_gbps) continue;
    const auto key = std::make_pair(ref.series, ref.point->bytes);
    if (const auto it = seen.find(key); it != seen.end()) {
      if (!ref.point->in_place) out[it->second].measured = ref;
      continue;
    }
    seen.emplace(key, out.size());
    out.push_back({ref, predicted});
  }
  return out;
}

std::vector<const model::RuntimeRun*> predicted_runtime_runs(const Context& context) {
  const model::Prediction& prediction = context.evidence.topology.prediction;
  std::vector<const model::RuntimeRun*> out;
  for (const auto& run : context.evidence.run.runtime.runs) {
    if (!run.recorded || run.info.tuning.empty()) continue;
    if (run.info.nranks && *run.info.nranks != prediction.n_ranks) continue;
    if (run.info.nnodes && *run.info.nnodes != 1) continue;
    if (is_what_if(context.user_env, run.env)) continue;
    out.push_back(&run);
  }
  return out;
}

std::string choice_text(const std::string& algorithm, const std::string& protocol, int channels) {
  return fmt::format("{}/{} on {} channel{}", algorithm, protocol.empty() ? "-" : protocol, channels,
                     channels == 1 ? "" : "s");
}

}  // namespace linkscope::diagnose
