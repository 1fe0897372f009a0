#pragma once
#include <string>

#include "model/patterns.hpp"

namespace linkscope::report {

// The terminal report of `linkscope patterns`: one line per pattern (aggregate GB/s = all payload bytes over
// first start to last stop, sum of its edges alone, scaling), the edges of each pattern, skipped presets with
// their reason, and the NUMA sweep.
std::string render_patterns_text(const model::PatternRun& run);

}  // namespace linkscope::report
