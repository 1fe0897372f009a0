#pragma once
#include <cstdlib>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "saved_run.hpp"
#include "support/run_command.hpp"

namespace linkscope::test {

// Compares `actual` with tests/golden/expected/p2p/<name>; LINKSCOPE_UPDATE_GOLDEN=1 rewrites the file instead
// (review the diff before committing it).
inline void expect_p2p_golden(const std::string& name, const std::string& actual) {
  const std::string path = std::string(LINKSCOPE_SOURCE_DIR) + "/tests/golden/expected/p2p/" + name;
  if (std::getenv("LINKSCOPE_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  const std::string expected = read_text(path);
  ASSERT_FALSE(expected.empty()) << "missing golden file " << path << " (run with LINKSCOPE_UPDATE_GOLDEN=1)";
  EXPECT_EQ(actual, expected) << "golden file " << path << " differs; LINKSCOPE_UPDATE_GOLDEN=1 rewrites it";
}

// The live text against its golden file, and the report of the command's saved `run` against the live text.
inline void expect_p2p_golden_and_report(const std::string& name, const model::Run& run, const std::string& live) {
  expect_p2p_golden(name, live);
  expect_report_prints_the_live_text(run, live);
}

}  // namespace linkscope::test
