// linkscope compare: exit 0 without a regression, 6 with one (acceptance gate), 2 for bad input.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"

namespace linkscope {
namespace {

using test::fixture;
using test::run_command;

TEST(CompareCli, TwoHealthyRunsPass) {
  const auto result = run_command(LINKSCOPE_BINARY, {"compare", fixture("runs/h200x2-healthy.json"),
                                                     fixture("runs/h200x2-rerun.json")});
  EXPECT_EQ(result.exit_code, 0) << result.out << result.err;
  EXPECT_NE(result.out.find("no regression beyond 5%"), std::string::npos) << result.out;
}

TEST(CompareCli, ABusyGpuFailsTheGateWithWhatGotWorse) {
  const auto result = run_command(LINKSCOPE_BINARY, {"compare", fixture("runs/h200x2-healthy.json"),
                                                     fixture("runs/h200x2-busy-gpu1.json"), "--threshold", "10%"});
  EXPECT_EQ(result.exit_code, 6) << result.out << result.err;
  EXPECT_NE(result.out.find("WORSE"), std::string::npos);
  EXPECT_NE(result.out.find("sm_read uni GPU1->GPU0 at 512 MiB"), std::string::npos) << result.out;
  EXPECT_NE(result.out.find("noisy-measurement"), std::string::npos) << result.out;
  // Reversed, everything is better: no regression.
  const auto reversed = run_command(LINKSCOPE_BINARY, {"compare", fixture("runs/h200x2-busy-gpu1.json"),
                                                       fixture("runs/h200x2-healthy.json"), "--format", "json"});
  EXPECT_EQ(reversed.exit_code, 0) << reversed.out;
  EXPECT_FALSE(nlohmann::json::parse(reversed.out).at("regressed").get<bool>());
}

TEST(CompareCli, BadInputExitsTwo) {
  const std::string run = fixture("runs/h200x2-healthy.json");
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"compare", run}, {"compare", run, "/nonexistent.json"}, {"compare", run, run, "--threshold", "five"},
           {"compare", run, run, "--format", "xml"}}) {
    const auto result = run_command(LINKSCOPE_BINARY, args);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_EQ(result.err.find('\n'), result.err.size() - 1) << result.err;
  }
}

// The gate cannot pass on a run that measured nothing: the base run's numbers missing in the new run, or no number
// in both, is exit 6 with what is missing.
TEST(CompareCli, ARunThatMeasuredNothingFailsTheGate) {
  test::TempDir dir;
  nlohmann::json document = nlohmann::json::parse(test::read_text(fixture("runs/h200x2-healthy.json")));
  document["measurements"] = nlohmann::json::object();
  const std::string empty = dir.write("empty.json", document.dump());
  const std::string healthy = fixture("runs/h200x2-healthy.json");
  const auto missing = run_command(LINKSCOPE_BINARY, {"compare", healthy, empty});
  EXPECT_EQ(missing.exit_code, 6) << missing.out << missing.err;
  EXPECT_NE(missing.out.find("MISSING in the new run"), std::string::npos) << missing.out;
  EXPECT_NE(missing.out.find("Result: FAILED"), std::string::npos) << missing.out;
  EXPECT_EQ(missing.out.find("no regression"), std::string::npos) << missing.out;
  // A topology-only base: nothing to compare.
  const auto nothing = run_command(LINKSCOPE_BINARY, {"compare", empty, healthy, "--format", "json"});
  EXPECT_EQ(nothing.exit_code, 6) << nothing.out << nothing.err;
  const auto json = nlohmann::json::parse(nothing.out);
  EXPECT_TRUE(json.at("nothing_compared").get<bool>());
  EXPECT_TRUE(json.at("failed").get<bool>());
}

}  // namespace
}  // namespace linkscope
