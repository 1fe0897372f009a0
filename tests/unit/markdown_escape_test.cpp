// report.md lands every run string through report/markdown_escape: a run document from anywhere cannot add HTML,
// links, images or code to the page, break a table or end a code span, and ordinary text stays as it is.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "diagnose/diagnose.hpp"
#include "model/run_file.hpp"
#include "report/markdown_escape.hpp"
#include "report/markdown_report.hpp"
#include "support/run_command.hpp"

namespace linkscope::report {
namespace {

// What one escaping function makes of an input, and why.
struct Case {
  std::string (*escape)(std::string_view);
  const char* input;
  const char* expected;
  const char* why;
};

void expect_cases(const std::vector<Case>& cases) {
  for (const auto& c : cases) EXPECT_EQ(c.escape(c.input), c.expected) << c.why << ": " << c.input;
}

TEST(MarkdownEscape, HtmlCannotOpen) {
  expect_cases({
      {markdown_text, "<script>alert(1)</script>", "&lt;script>alert(1)&lt;/script>", "a tag"},
      {markdown_text, "<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)>", "an image tag"},
      {markdown_text, "<!-- hidden -->", "&lt;!-- hidden -->", "a comment"},
      {markdown_text, "<http://example.com>", "&lt;http://example.com>", "an autolink"},
      {markdown_text, "&lt;b&gt; &#60; &#x3c;", "&amp;lt;b&amp;gt; &amp;#60; &amp;#x3c;", "entities stay literal"},
  });
}

TEST(MarkdownEscape, OrdinaryTextStaysAsItIs) {
  for (const char* text : {"GPU1->GPU0 is 54% slower", "reach <= 0.90", "P2P & SHM", "src \\ dst", "sm_read",
                           "NCCL_* variables", "all_reduce [NCCL_P2P_DISABLE=1]", "18 x 26.562 GB/s (82%)", "12 pairs",
                           "GPU1 (0000:00:07.0) runs other processes"}) {
    EXPECT_EQ(markdown_text(text), text);
    EXPECT_EQ(markdown_line(text), text);
  }
}

TEST(MarkdownEscape, LinksCodeTablesAndLinesCannotForm) {
  expect_cases({
      {markdown_text, "[click](http://evil) ![x](http://evil/pixel)", "[click]\\(http://evil) ![x]\\(http://evil/pixel)",
       "no link or image"},
      {markdown_text, "`rm -rf /`", "\\`rm -rf /\\`", "no code span"},
      {markdown_text, "a|b", "a\\|b", "no table cell"},
      {markdown_text, "one\ntwo\r\nthree", "one two  three", "no line break"},
      {markdown_text, "\\`not code\\`", "\\\\\\`not code\\\\\\`", "a backslash cannot undo an escape"},
      {markdown_text, "ends in \\", "ends in \\\\", "a trailing backslash is no hard line break"},
      {markdown_line, "# heading", "\\# heading", "no heading"},
      {markdown_line, "> quote", "\\> quote", "no block quote"},
      {markdown_line, "- item", "\\- item", "no list"},
      {markdown_line, "[ref]: http://evil", "\\[ref]: http://evil", "no link definition"},
      {markdown_line, "12. twelfth", "12\\. twelfth", "no ordered list"},
  });
}

TEST(MarkdownEscape, CodeSpansGetAFenceLongerThanTheirBackticks) {
  expect_cases({
      {markdown_code, "linkscope p2p --pairs 1>0", "`linkscope p2p --pairs 1>0`", "verbatim inside"},
      {markdown_code, "echo `id`", "`` echo `id` ``", "padded on both sides, so CommonMark strips both"},
      {markdown_code, "a``b", "```a``b```", "a fence longer than the longest run"},
      {markdown_code, "`start", "`` `start ``", "a backtick at the edge"},
      {markdown_code, " both ", "`  both  `", "CommonMark strips one space from each end"},
      {markdown_code, "two\nlines", "`two lines`", "no line break"},
  });
}

TEST(MarkdownEscape, RunStringsReachTheReportEscaped) {
  model::Run run = model::read_run_file(test::fixture("runs/h200x2-healthy.json"));
  run.config.host = "<script>alert(1)</script>";
  run.config.argv = {"linkscope", "doctor", "--env", "NCCL_SOCKET_IFNAME=`id`"};
  run.system.gpus[0].name = "<img src=x onerror=alert(1)>";
  run.system.driver.version = std::string("<b>580</b>");
  run.environment.variables["NCCL_SOCKET_IFNAME"] = "eth0|[x](http://evil)";
  run.errors.push_back({"p2p 0>1", "copy failed: `cudaErrorPeerAccessUnsupported` <br>"});
  diagnose::diagnose_into(run);
  MarkdownOptions options;
  options.link_svg_files = true;
  const std::string md = render_markdown(run, options);
  EXPECT_EQ(md.find("<script"), std::string::npos);
  EXPECT_EQ(md.find("<img"), std::string::npos);
  EXPECT_EQ(md.find("<b>"), std::string::npos);
  EXPECT_EQ(md.find("](http://evil"), std::string::npos);
  EXPECT_NE(md.find("# linkscope report: &lt;script>alert(1)&lt;/script>\n"), std::string::npos) << md.substr(0, 300);
  EXPECT_NE(md.find("driver &lt;b>580&lt;/b>"), std::string::npos);
  EXPECT_NE(md.find("\n`` linkscope doctor --env NCCL_SOCKET_IFNAME=`id` ``\n"), std::string::npos);
  EXPECT_NE(md.find("| NCCL_SOCKET_IFNAME | eth0\\|[x]\\(http://evil) |"), std::string::npos);
  EXPECT_NE(md.find("| p2p 0>1 | copy failed: \\`cudaErrorPeerAccessUnsupported\\` &lt;br> |"), std::string::npos);
  EXPECT_NE(md.find("| GPU0 (NVML 0) | 0000:00:06.0 | &lt;img src=x onerror=alert(1)> |"), std::string::npos);
  // The report's own markup is still there.
  EXPECT_NE(md.find("<br><sub>"), std::string::npos);
  EXPECT_NE(md.find("![topology](topology.svg)"), std::string::npos);
}

}  // namespace
}  // namespace linkscope::report
