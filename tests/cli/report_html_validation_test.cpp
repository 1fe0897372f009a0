// Validates what `linkscope report` writes with independent parsers: report.html with html5lib in strict mode
// (any parse error fails) and every SVG file with xmllint. Skipped, with the reason, when a validator is missing
// (scripts/install-deps.sh installs python3-html5lib and libxml2-utils).
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "support/html_validation.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace linkscope {
namespace {

using test::run_command;

class ReportValidation : public ::testing::TestWithParam<const char*> {};

TEST_P(ReportValidation, HtmlIsStrictHtml5AndSvgsAreXml) {
  const std::string python = test::python_with_html5lib();
  if (python.empty()) GTEST_SKIP() << "python3 with html5lib not found (apt-get install python3-html5lib)";
  if (run_command("xmllint", {"--version"}).exit_code != 0) {
    GTEST_SKIP() << "xmllint not found (apt-get install libxml2-utils)";
  }
  test::TempDir dir;
  const std::string out = dir.path() + "/report/";
  const auto rendered = run_command(LINKSCOPE_BINARY, {"report", test::fixture(std::string("runs/") + GetParam()),
                                                       "--output", out});
  ASSERT_EQ(rendered.exit_code, 0) << rendered.err;

  const auto html = test::check_strict_html5(python, out + "report.html");
  EXPECT_EQ(html.exit_code, 0) << html.out << html.err;

  int svgs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(out)) {
    if (entry.path().extension() != ".svg") continue;
    ++svgs;
    const auto xml = run_command("xmllint", {"--noout", entry.path().string()});
    EXPECT_EQ(xml.exit_code, 0) << entry.path() << ": " << xml.err;
  }
  EXPECT_GE(svgs, 1);
}

INSTANTIATE_TEST_SUITE_P(Runs, ReportValidation,
                         ::testing::Values("h200x2-healthy.json", "h200x2-nccl-p2p-disable.json",
                                           "hgx-h200-8gpu-synthetic-gpu5-slow.json", "hgx-h200-8gpu-model.json"));

}  // namespace
}  // namespace linkscope
