#pragma once
// `linkscope topo --predict`: NCCL's tuner choice per size as a readable table.
#include <string>
#include <vector>

#include "topo/communicator_model.hpp"

namespace linkscope::topo {

// Per size the algorithm, protocol, channels, predicted time, algbw and busbw of each collective in `funcs`
// (kFuncAllReduce ...), under a line naming the communicator's channels; a sentence when there is nothing to predict.
std::string render_prediction_table(const CommunicatorModel& comm, const std::vector<int>& funcs);

}  // namespace linkscope::topo
