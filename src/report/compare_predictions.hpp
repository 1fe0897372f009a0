#pragma once
#include "model/run.hpp"
#include "report/compare_runs.hpp"

// `compare`'s view of NCCL's model: where the two runs' predictions choose differently (another topology or
// environment), and how close each run's measurements came to its prediction. Changes of category "prediction";
// none of them fails the gate (the measurements themselves do).
namespace linkscope::report {

void compare_predictions(const model::Run& base, const model::Run& current, Comparison& out);

}  // namespace linkscope::report
