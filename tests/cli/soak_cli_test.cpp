// `linkscope doctor --soak DURATION`: cycles until the duration, the soak's summary in the run and in run.json on
// disk after every cycle; bad durations and combinations are one-line usage errors. Without a GPU here each cycle
// measures nothing (the recorded h200x2 NVML with CUDA_VISIBLE_DEVICES= hides both GPUs), which is what CI has.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/run_command.hpp"
#include "support/temp_dir.hpp"
#include "unit/discover_snapshot.hpp"

namespace linkscope {
namespace {

using nlohmann::json;
using test::run_command;

TEST(SoakCli, CyclesUntilTheDurationAndKeepsEveryCycleInTheRun) {
  test::TempDir dir;
  const std::string report = dir.path() + "/soak";
  const auto soak = run_command(LINKSCOPE_BINARY, {"doctor", "--soak", "3s", "-o", report, "--format", "json"},
                                {std::string("LINKSCOPE_NVML_LIBRARY=") + LINKSCOPE_FAKE_NVML, "CUDA_VISIBLE_DEVICES=",
                                 "LINKSCOPE_TELEMETRY=off"});
  ASSERT_NE(soak.exit_code, 2) << soak.err;
  const json run = json::parse(soak.out);
  const json& cycles = run["measurements"]["soak"]["cycles"];
  ASSERT_GE(cycles.size(), 1u) << soak.err;
  EXPECT_EQ(run["measurements"]["soak"]["requested_s"], 3.0);
  EXPECT_NE(run["measurements"]["soak"]["ended"].get<std::string>().find("duration reached"), std::string::npos);
  for (std::size_t i = 0; i < cycles.size(); ++i) EXPECT_EQ(cycles[i]["index"], static_cast<int>(i));
  EXPECT_NE(soak.err.find("soak cycle 1 at 0 s of 3 s"), std::string::npos) << soak.err;
  const json on_disk = json::parse(test::read_text(report + "/run.json"));
  EXPECT_EQ(on_disk["measurements"]["soak"]["cycles"].size(), cycles.size());
}

TEST(SoakCli, BadDurationsAndCombinationsAreUsageErrors) {
  test::TempDir dir;
  for (const char* bad : {"0", "5d", "-1m", "soon"}) {
    const auto result = run_command(LINKSCOPE_BINARY, {"doctor", "--soak", bad, "-o", dir.path() + "/r"});
    EXPECT_EQ(result.exit_code, 2) << bad << ": " << result.err;
    EXPECT_NE(result.err.find("--soak"), std::string::npos) << result.err;
  }
  const auto with_capture =
      run_command(LINKSCOPE_BINARY, {"doctor", "--soak", "1m", "--capture", dir.path() + "/x.tgz", "-o", dir.path()});
  EXPECT_EQ(with_capture.exit_code, 2) << with_capture.err;
  EXPECT_NE(with_capture.err.find("--soak repeats a live run"), std::string::npos) << with_capture.err;
}

}  // namespace
}  // namespace linkscope
