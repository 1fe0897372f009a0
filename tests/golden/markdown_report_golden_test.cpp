// report.md and the terminal summary for fixed Run documents (tests/fixtures/runs), compared byte for byte.
#include <gtest/gtest.h>

#include "report/markdown_report.hpp"
#include "report/summary_text.hpp"
#include "report_golden.hpp"

namespace linkscope::report {
namespace {

class MarkdownGolden : public ::testing::TestWithParam<const char*> {};

TEST_P(MarkdownGolden, MatchesExpected) {
  const std::string name = GetParam();
  const model::Run run = test::diagnosed_fixture(name + ".json");
  MarkdownOptions options;
  options.link_svg_files = true;
  test::expect_golden(name + ".md", render_markdown(run, options));
  test::expect_golden(name + ".summary.txt", render_summary_text(run));
}

INSTANTIATE_TEST_SUITE_P(Runs, MarkdownGolden,
                         ::testing::Values("h200x2-healthy", "h200x2-busy-gpu1", "h200x2-nccl-p2p-disable",
                                           "h200x2-cuda-visible-devices-1", "hgx-h200-8gpu-synthetic-gpu5-slow"),
                         [](const auto& param_info) {
                           std::string name = param_info.param;
                           for (char& c : name) {
                             if (c == '-') c = '_';
                           }
                           return name;
                         });

TEST(MarkdownGoldenTopologyFile, GpuWithoutNvlink) {
  const model::Run run = test::diagnosed_topology_file("topo-variants/hgx-h200-gpu5-no-nvlink.xml");
  MarkdownOptions options;
  options.link_svg_files = true;
  test::expect_golden("hgx-h200-gpu5-no-nvlink.md", render_markdown(run, options));
  test::expect_golden("hgx-h200-gpu5-no-nvlink.summary.txt", render_summary_text(run));
}

}  // namespace
}  // namespace linkscope::report
