#pragma once
#include <string>
#include <vector>

#include "diagnose/context.hpp"
#include "model/prediction.hpp"

// Measurements paired with NCCL's own prediction for them (the `tuning` of the model section): the measured
// collective points and the runtime runs whose tuner choices the prediction is for. Shared by the
// nccl-choice-differs and busbw-below-prediction rules and the nccl-model-busbw hypothesis.
namespace linkscope::diagnose {

// A measured size with the tuner's choice for it.
struct PredictedPoint {
  CollectiveRef measured;
  const model::TuningChoice* predicted = nullptr;
};

// One point per series and size (out of place when both were measured), measured ok, of series that set no path
// variable of their own and ran as many ranks as the prediction, at a size the model predicted.
std::vector<PredictedPoint> predicted_points(const Evidence& evidence);

// Runtime runs recorded with NCCL's log that the prediction is for: the prediction's rank count, one node, no path
// variable of their own (ladder layers and --env what-ifs ran another configuration).
std::vector<const model::RuntimeRun*> predicted_runtime_runs(const Context& context);

// "Ring/LL128 on 24 channels"
std::string choice_text(const std::string& algorithm, const std::string& protocol, int channels);

}  // namespace linkscope::diagnose
