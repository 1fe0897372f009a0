#pragma once
#include <string>

#include "support/run_command.hpp"

namespace linkscope::test {

// An interpreter that can import html5lib: the one on PATH, else the system's (a pyenv python3 may lack it);
// "" when there is none.
std::string python_with_html5lib();

// Parses `html_path` with html5lib in strict mode using `python`; exit 0 when it is valid HTML5.
CommandResult check_strict_html5(const std::string& python, const std::string& html_path);

}  // namespace linkscope::test
