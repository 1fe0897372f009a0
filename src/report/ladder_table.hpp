#pragma once
#include <string>

#include "model/ladder.hpp"
#include "model/run.hpp"

namespace linkscope::report {

// The path ladder as `linkscope ladder` prints it: per layer the transport NCCL used, busbw at the largest size,
// the path's peak, efficiency, slowdown and the path or status.
std::string render_ladder_table(const model::Ladder& ladder);

// What `linkscope ladder` prints for its run: the table, and a note where peaks lack the hardware facts.
std::string render_ladder_text(const model::Run& run);

}  // namespace linkscope::report
