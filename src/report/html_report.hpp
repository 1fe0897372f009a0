#pragma once
#include <string>

#include "model/run.hpp"

namespace linkscope::report {

// report.html: one self-contained page (inline CSS and SVG, no script, no network, no external font).
// Every string from the run goes through escape_html.
std::string render_html(const model::Run& run);

}  // namespace linkscope::report
