#pragma once
#include <string>
#include <string_view>

#include "model/diagnosis.hpp"

// Small text helpers shared by the report renderers.
namespace linkscope::report {

// "ERROR", "WARNING", "INFO".
std::string severity_label(model::Severity severity);
// At most `width` characters, ending in "..." when cut (UTF-8 safe: never splits a multi-byte character).
std::string clip(const std::string& text, std::size_t width);
// HTML/XML text and attribute escaping (& < > " '): the one escaping of report.html and every SVG.
std::string escape_html(std::string_view text);
// A stable id for anchors/filenames: lower case, [a-z0-9-] only.
std::string slug(std::string_view text);

}  // namespace linkscope::report
