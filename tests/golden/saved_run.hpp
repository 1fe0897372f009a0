#pragma once
// A live command's Run as `linkscope report run.json` sees it: written as run.json and read back, so a test can
// hold what the command printed live against what the report prints from the saved run.
#include <string>

#include <gtest/gtest.h>

#include "model/run.hpp"
#include "model/run_file.hpp"
#include "report/report_render.hpp"

namespace linkscope::test {

inline model::Run saved_run(const model::Run& run) { return model::parse_run_text(model::run_text(run), "run.json"); }

// `report run.json --format text` of the saved run prints exactly what the command printed live.
inline void expect_report_prints_the_live_text(const model::Run& run, const std::string& live) {
  EXPECT_EQ(report::render_report(saved_run(run), report::ReportFormat::kText), live);
}

}  // namespace linkscope::test
