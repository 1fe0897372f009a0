// A saved run of several hosts through `linkscope report` and `linkscope doctor --from`: the cluster sections and
// rules survive a round trip through a file, report.html stays strict HTML5 (html5lib) and the host matrix is a
// valid SVG file (xmllint). The validators are skipped, with the reason, where they are missing.
#include <gtest/gtest.h>

#include <filesystem>

#include "model/run_file.hpp"
#include "support/html_validation.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "unit/cluster_test_runs.hpp"

namespace linkscope {
namespace {

using test::run_command;

std::string saved_cluster_run(const test::TempDir& dir) {
  const std::string path = dir.path() + "/cluster-run.json";
  model::write_run_file(path, test::cluster_run());
  return path;
}

TEST(ClusterReportCli, ReportDirectoryHasTheHostsAndAValidMatrix) {
  test::TempDir dir;
  const std::string run = saved_cluster_run(dir);
  const std::string out = dir.path() + "/report/";
  const auto rendered = run_command(LINKSCOPE_BINARY, {"report", run, "--output", out});
  ASSERT_EQ(rendered.exit_code, 0) << rendered.err;
  ASSERT_TRUE(std::filesystem::exists(out + "cross-host-heatmap.svg"));
  const std::string md = test::read_text(out + "report.md");
  EXPECT_NE(md.find("![cross-host matrix](cross-host-heatmap.svg)"), std::string::npos) << md;

  const std::string python = test::python_with_html5lib();
  if (python.empty()) GTEST_SKIP() << "python3 with html5lib not found (apt-get install python3-html5lib)";
  const auto html = test::check_strict_html5(python, out + "report.html");
  EXPECT_EQ(html.exit_code, 0) << html.out << html.err;
  if (run_command("xmllint", {"--version"}).exit_code != 0) GTEST_SKIP() << "xmllint not found (apt-get install libxml2-utils)";
  const auto xml = run_command("xmllint", {"--noout", out + "cross-host-heatmap.svg"});
  EXPECT_EQ(xml.exit_code, 0) << xml.err;
}

TEST(ClusterReportCli, DoctorFromASavedClusterRunFindsTheSameProblems) {
  test::TempDir dir;
  const auto result = run_command(LINKSCOPE_BINARY, {"doctor", "--from", saved_cluster_run(dir), "-o", dir.path() + "/r",
                                                     "--fail-on", "warning"});
  EXPECT_EQ(result.exit_code, 6) << result.err;
  EXPECT_NE(result.out.find("host-differs"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("cross-host-slow"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("  cluster: 3 host(s), 3 rank(s), 2 group(s) of identical hosts"), std::string::npos)
      << result.out;
}

}  // namespace
}  // namespace linkscope
