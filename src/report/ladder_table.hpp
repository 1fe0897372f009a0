#pragma once
#include <string>

#include "model/ladder.hpp"

namespace linkscope::report {

// The path ladder as `linkscope ladder` prints it: per layer the transport NCCL used, busbw at the largest size,
// the path's peak, efficiency, slowdown and the path or status.
std::string render_ladder_table(const model::Ladder& ladder);

}  // namespace linkscope::report
