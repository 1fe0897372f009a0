#pragma once
#include <string>

namespace linkscope::report {

// The report page's stylesheet (inlined into report.html).
const std::string& html_style();

}  // namespace linkscope::report
