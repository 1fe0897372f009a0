#pragma once
#include <string>

#include "core/run.hpp"

namespace linkscope::report {

// report.html: one self-contained page (inline CSS and SVG, no script, no network, no external font).
std::string render_html(const RunDocument& run);

}  // namespace linkscope::report
