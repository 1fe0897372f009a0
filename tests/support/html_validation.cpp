#include "support/html_validation.hpp"

namespace linkscope::test {

namespace {
constexpr const char* kStrictHtml5 = R"py(
import sys, html5lib
parser = html5lib.HTMLParser(strict=True)
try:
    parser.parse(open(sys.argv[1], 'rb'))
except Exception as error:
    print('html5lib strict:', error, parser.errors[:5])
    sys.exit(1)
)py";
}  // namespace

std::string python_with_html5lib() {
  for (const char* python : {"python3", "/usr/bin/python3"}) {
    if (run_command(python, {"-c", "import html5lib"}).exit_code == 0) return python;
  }
  return "";
}

CommandResult check_strict_html5(const std::string& python, const std::string& html_path) {
  return run_command(python, {"-c", kStrictHtml5, html_path});
}

}  // namespace linkscope::test
