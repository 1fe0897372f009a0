#pragma once
#include <string>

#include "model/run.hpp"

namespace linkscope::report {

// The Run document as JSON (with its hypotheses and findings), exactly as model::run_text writes run.json.
std::string render_json(const model::Run& run);

}  // namespace linkscope::report
