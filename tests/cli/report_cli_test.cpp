// linkscope report: every format to stdout, to a file, to a directory; diagnosis when the saved run has none.
#include <filesystem>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace linkscope {
namespace {

using test::fixture;
using test::run_command;

TEST(ReportCli, TextByDefaultDiagnosingAnUndiagnosedRun) {
  const auto result = run_command(LINKSCOPE_BINARY, {"report", fixture("runs/h200x2-busy-gpu1.json")});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.out.find("WARNING  noisy-measurement"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("WARNING  pair-asymmetric"), std::string::npos) << result.out;
}

TEST(ReportCli, EveryFormatToStdout) {
  const std::string run = fixture("runs/h200x2-healthy.json");
  EXPECT_EQ(run_command(LINKSCOPE_BINARY, {"report", run, "--format", "md"}).out.rfind("# linkscope report: vm", 0), 0u);
  EXPECT_EQ(run_command(LINKSCOPE_BINARY, {"report", run, "--format", "html"}).out.rfind("<!DOCTYPE html>", 0), 0u);
  const auto json = run_command(LINKSCOPE_BINARY, {"report", run, "--format", "json"});
  ASSERT_EQ(json.exit_code, 0);
  const auto document = nlohmann::json::parse(json.out);
  EXPECT_EQ(document.at("schema_version").get<std::string>().rfind("1.", 0), 0u);
  EXPECT_GE(document.at("hypotheses").size(), 7u);
}

TEST(ReportCli, OutputFileAndDirectory) {
  test::TempDir dir;
  const std::string run = fixture("runs/hgx-h200-8gpu-synthetic-gpu5-slow.json");
  auto result = run_command(LINKSCOPE_BINARY, {"report", run, "--format", "html", "--output", dir.path() + "/x.html"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(test::read_text(dir.path() + "/x.html").find("gpu-slow"), std::string::npos);
  result = run_command(LINKSCOPE_BINARY, {"report", run, "--output", dir.path() + "/all/"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  for (const char* file : {"report.html", "report.md", "run.json", "p2p-heatmap-ce.svg"}) {
    EXPECT_TRUE(std::filesystem::exists(dir.path() + "/all/" + file)) << file;
  }
  result = run_command(LINKSCOPE_BINARY, {"report", run, "--format", "md", "--output", dir.path() + "/all"});
  ASSERT_EQ(result.exit_code, 0) << result.err;
  EXPECT_NE(result.err.find("all/report.md"), std::string::npos) << result.err;
}

TEST(ReportCli, RediagnoseReplacesASavedDiagnosis) {
  test::TempDir dir;
  auto document = nlohmann::json::parse(test::read_text(fixture("runs/h200x2-healthy.json")));
  document["findings"] = {{{"id", "made-up"}, {"severity", "error"}, {"title", "stale"}}};
  const std::string path = dir.write("stale.json", document.dump());
  EXPECT_NE(run_command(LINKSCOPE_BINARY, {"report", path}).out.find("made-up"), std::string::npos);
  const auto fresh = run_command(LINKSCOPE_BINARY, {"report", path, "--rediagnose"});
  EXPECT_EQ(fresh.out.find("made-up"), std::string::npos) << fresh.out;
  EXPECT_NE(fresh.out.find("Findings: none"), std::string::npos) << fresh.out;
}

TEST(ReportCli, BadArgumentsExitTwoWithOneLine) {
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{{"report"},
                                             {"report", fixture("runs/h200x2-healthy.json"), "--format", "pdf"},
                                             {"report", "/nonexistent/run.json"},
                                             {"report", fixture("topo/azure-ncv4-topo.xml")}}) {
    const auto result = run_command(LINKSCOPE_BINARY, args);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << result.err;
  }
}

}  // namespace
}  // namespace linkscope
