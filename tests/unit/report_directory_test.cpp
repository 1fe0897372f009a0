// The report directory `doctor` and `report` write: every file through the atomic writer, never over the run it
// was rendered from.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/error.hpp"
#include "core/file_set.hpp"
#include "diagnose/diagnose.hpp"
#include "model/run_file.hpp"
#include "report/json_report.hpp"
#include "report/p2p_text.hpp"
#include "report/report_render.hpp"
#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace linkscope::report {
namespace {

TEST(ReportDirectory, WritesEveryFileAndTheRunAsRunJsonWritesIt) {
  model::Run run = model::read_run_file(test::fixture("runs/h200x2-healthy.json"));
  diagnose::diagnose_into(run);
  test::TempDir dir;
  const std::string out = dir.path() + "/report";
  const auto written = write_report_directory(out, run);
  for (const char* name : {"run.json", "report.html", "report.md", "topology.svg", "p2p-heatmap-ce.svg",
                           "collectives.svg", "ladder.svg"}) {
    const std::string path = out + "/" + name;
    EXPECT_NE(std::find(written.begin(), written.end(), path), written.end()) << name;
    EXPECT_TRUE(std::filesystem::is_regular_file(path)) << name;
  }
  EXPECT_EQ(test::read_text(out + "/run.json"), model::run_text(run));
  EXPECT_EQ(test::read_text(out + "/run.json"), render_json(run));
  // No temporary file is left beside the targets; the one more is the list of the set's files.
  std::size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(out)) files += entry.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, written.size() + 1);
  EXPECT_TRUE(std::filesystem::is_regular_file(out + "/" + kFileSetList));
}

TEST(ReportDirectory, RefusesToWriteOverItsInput) {
  test::TempDir dir;
  const std::string input = dir.write("report/run.json", test::read_text(test::fixture("runs/h200x2-healthy.json")));
  const model::Run run = model::read_run_file(input);
  EXPECT_THROW(write_report_directory(dir.path() + "/report", run, {input}), InputError);
  EXPECT_EQ(test::read_text(input), test::read_text(test::fixture("runs/h200x2-healthy.json")));
}

TEST(ReportDirectory, TextFormatPrintsWhatTheRunsCommandPrinted) {
  const model::Run doctor = model::read_run_file(test::fixture("runs/h200x2-healthy.json"));
  EXPECT_EQ(render_report(doctor, ReportFormat::kText).rfind("linkscope doctor: vm, 2 x NVIDIA H200\n", 0), 0u);
  model::Run p2p = doctor;
  p2p.config.subcommand = "p2p";
  EXPECT_EQ(render_report(p2p, ReportFormat::kText), render_p2p_text(*p2p.measurements.p2p));
  p2p.measurements.p2p.reset();
  EXPECT_EQ(render_report(p2p, ReportFormat::kText).rfind("linkscope p2p: vm, 2 x NVIDIA H200\n", 0), 0u)
      << "a p2p run without its measurements gets the summary";
}

}  // namespace
}  // namespace linkscope::report
