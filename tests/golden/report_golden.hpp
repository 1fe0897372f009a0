#pragma once
// Golden-file comparison for report renderers: the expected text lives in tests/golden/expected/report/.
// LINKSCOPE_UPDATE_GOLDEN=1 rewrites the expected files from the current output (review the diff, then commit).
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "diagnose/diagnose.hpp"
#include "model/run.hpp"
#include "model/run_file.hpp"
#include "support/run_command.hpp"

namespace linkscope::test {

inline std::string golden_path(const std::string& name) {
  return std::string(LINKSCOPE_SOURCE_DIR) + "/tests/golden/expected/report/" + name;
}

inline void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = golden_path(name);
  const char* update = std::getenv("LINKSCOPE_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  const std::string expected = read_text(path);
  ASSERT_FALSE(expected.empty()) << path << " is missing; run with LINKSCOPE_UPDATE_GOLDEN=1 to create it";
  if (expected == actual) return;
  // Show the first differing line, not two walls of text.
  std::istringstream e(expected), a(actual);
  std::string el, al;
  int line = 1;
  while (true) {
    const bool more_e = static_cast<bool>(std::getline(e, el));
    const bool more_a = static_cast<bool>(std::getline(a, al));
    if (!more_e) el = "<end of file>";
    if (!more_a) al = "<end of file>";
    if (!more_e || !more_a || el != al) break;
    ++line;
  }
  ADD_FAILURE() << name << " differs from its golden file at line " << line << ":\n  expected: " << el
                << "\n  actual:   " << al << "\n(LINKSCOPE_UPDATE_GOLDEN=1 rewrites " << path << ")";
}

// A fixture run (tests/fixtures/runs) with its diagnosis.
inline model::Run diagnosed_fixture(const std::string& name) {
  model::Run run = model::read_run_file(fixture("runs/" + name));
  diagnose::diagnose_into(run);
  return run;
}

// A topology file alone, diagnosed as `doctor --xml` does, with fixed run metadata so the output is stable.
model::Run diagnosed_topology_file(const std::string& relative_xml);

}  // namespace linkscope::test
