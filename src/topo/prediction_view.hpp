#pragma once
// The communicator model as the Run's typed prediction (model::Prediction: the `graphs` and `tuning` of the
// `model` section), and the one call that models a topology and predicts it.
#include "model/prediction.hpp"
#include "topo/communicator_model.hpp"

namespace linkscope::topo {

// The ring and tree graphs and, for every collective NCCL tunes, the choice at 2^3..2^33 bytes.
model::Prediction prediction_view(const CommunicatorModel& comm);

// model_communicator + prediction_view under the NCCL variables of `env`.
model::Prediction predict_topology(const TopologyModel& model, const Environment& env);

}  // namespace linkscope::topo
