// Drift, steps and flaps over a soak's cycles (diagnose/soak_changes): a trend and a lasting change are found with
// their size and cycle; scatter around one level, a single odd cycle and too few cycles are not.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "core/seconds.hpp"
#include "diagnose/soak_changes.hpp"

namespace linkscope::diagnose {
namespace {

model::Soak soak_of(const std::vector<double>& gbps, const std::string& metric = "all_reduce 256 MiB") {
  model::Soak soak;
  for (std::size_t i = 0; i < gbps.size(); ++i) {
    model::SoakCycle cycle;
    cycle.index = static_cast<int>(i);
    cycle.metrics[metric] = gbps[i] * 1e9;
    soak.cycles.push_back(cycle);
  }
  return soak;
}

TEST(SoakChanges, ASteadyFallIsADriftOfItsSize) {
  const auto changes = soak_metric_changes(soak_of({360, 354, 349, 343, 338, 332}));
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].kind, "drift");
  EXPECT_NEAR(changes[0].relative, -0.078, 0.005);
  EXPECT_EQ(changes[0].at_cycle, 5);
}

TEST(SoakChanges, ALastingDropIsAStepFromTheCycleItStarted) {
  const auto changes = soak_metric_changes(soak_of({360, 361, 359, 270, 271, 269}));
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].kind, "step");
  EXPECT_EQ(changes[0].at_cycle, 3);
  EXPECT_NEAR(changes[0].relative, -0.25, 0.005);
}

TEST(SoakChanges, ScatterAroundOneLevelAndOneOddCycleAreNotChanges) {
  EXPECT_TRUE(soak_metric_changes(soak_of({360, 357, 362, 358, 361, 359})).empty());
  EXPECT_TRUE(soak_metric_changes(soak_of({360, 361, 250, 359, 360, 361})).empty());  // back on its level
  EXPECT_TRUE(soak_metric_changes(soak_of({360, 270})).empty());                      // two cycles prove nothing
}

TEST(SoakChanges, ALinkFactThatChangesBetweenCyclesIsAFlap) {
  model::Soak soak = soak_of({360, 360, 360});
  for (auto& cycle : soak.cycles) cycle.states["GPU1 PCIe width"] = "16";
  soak.cycles[2].states["GPU1 PCIe width"] = "8";
  const auto flaps = soak_state_changes(soak);
  ASSERT_EQ(flaps.size(), 1u);
  EXPECT_EQ(flaps[0].state, "GPU1 PCIe width");
  EXPECT_EQ(flaps[0].before, "16");
  EXPECT_EQ(flaps[0].after, "8");
  EXPECT_EQ(flaps[0].at_cycle, 2);
  soak.cycles[2].states["GPU1 PCIe width"] = "16";
  EXPECT_TRUE(soak_state_changes(soak).empty());
}

// Error counters are cumulative: each rise between two cycles is reported once, with its size; a steady count is not.
TEST(SoakChanges, AnErrorCounterThatGrowsBetweenCyclesIsReportedEachTime) {
  model::Soak soak = soak_of({360, 360, 360, 360});
  const std::int64_t crc[] = {5, 5, 17, 40};
  for (std::size_t i = 0; i < soak.cycles.size(); ++i) {
    soak.cycles[i].counters["GPU0 NVLink 3 CRC flit errors"] = crc[i];
    soak.cycles[i].counters["GPU0 NVLink 3 replay errors"] = 2;
  }
  const auto rises = soak_counter_rises(soak);
  ASSERT_EQ(rises.size(), 2u);
  EXPECT_EQ(rises[0].counter, "GPU0 NVLink 3 CRC flit errors");
  EXPECT_EQ(rises[0].before, 5);
  EXPECT_EQ(rises[0].after, 17);
  EXPECT_EQ(rises[0].at_cycle, 2);
  EXPECT_EQ(rises[1].at_cycle, 3);
  EXPECT_TRUE(soak_state_changes(soak).empty());
  soak.cycles[3].counters["GPU0 NVLink 3 CRC flit errors"] = 17;  // read again, no new errors
  EXPECT_EQ(soak_counter_rises(soak).size(), 1u);
}

TEST(SoakDuration, UnitsAndRefusals) {
  EXPECT_EQ(parse_duration("600", "--soak"), 600);
  EXPECT_EQ(parse_duration("90s", "--soak"), 90);
  EXPECT_EQ(parse_duration("30m", "--soak"), 1800);
  EXPECT_EQ(parse_duration("1.5h", "--soak"), 5400);
  for (const char* bad : {"", "0", "-5m", "5d", "m", "1e400", "nan"}) {
    EXPECT_THROW(parse_duration(bad, "--soak"), UsageError) << bad;
  }
}

}  // namespace
}  // namespace linkscope::diagnose
