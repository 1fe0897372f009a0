#pragma once
#include <string>

#include "core/run.hpp"

namespace linkscope::report {

// The Run document as JSON (with its hypotheses and findings), pretty-printed, ending in a newline.
std::string render_json(const RunDocument& run);

}  // namespace linkscope::report
