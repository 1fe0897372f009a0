#pragma once
#include <string>

#include "model/run.hpp"

namespace linkscope::report {

// The short terminal summary: machine, findings by severity (with cause and next command), hypotheses with
// verdicts, key numbers. Plain text, lines of at most about 110 characters.
std::string render_summary_text(const model::Run& run);
// Parts of it that `cluster` prints too: the findings (each with its cause and next command), and a soak's cycles.
std::string render_findings_text(const model::Run& run);
std::string render_soak_text(const model::Run& run);

}  // namespace linkscope::report
