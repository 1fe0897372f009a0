// The rules over what the doctor watched during its run (measurements.telemetry): noisy-measurement (foreign
// processes by pid, load while no step ran, pids of another namespace), pcie-errors-during-run,
// nvlink-errors-during-run, xid-during-run and ecc-errors; each finding cites the step and its sizes.
#include <algorithm>

#include <gtest/gtest.h>

#include "diagnose/diagnose.hpp"
#include "diagnose_test_runs.hpp"
#include "telemetry_test_runs.hpp"

namespace linkscope::diagnose {
namespace {

using nlohmann::json;
using test::kMiB;

std::vector<Finding> findings(const test::RunJson& run) { return find_problems(run); }

std::optional<Finding> finding(const test::RunJson& run, const std::string& id) {
  for (auto& f : findings(run)) {
    if (f.id == id) return f;
  }
  return std::nullopt;
}

std::string text_of(const Finding& f) {
  std::string text = f.title + "\n" + f.cause + "\n" + f.explanation;
  for (const auto& line : f.evidence) text += "\n" + line;
  return text;
}

// Two GPUs measured by p2p (0.5-4 s) and coll all_reduce (4.2-8 s), with quiet numbers (CV 1%).
test::RunJson measured_run(const test::TelemetryJson& telemetry, int gpus = 2) {
  test::RunJson run = test::nvswitch_run(gpus);
  run.system["driver"] = {{"available", true}, {"version", "580.159.04"}};
  json copies = json::array();
  for (const std::uint64_t bytes : {1 * kMiB, 256 * kMiB}) {
    copies.push_back(test::copy_point(0, gpus > 1 ? 1 : 0, "ce", bytes, bytes > kMiB ? 390.0 : 60.0, 0.01));
  }
  test::add_copies(run, copies);
  json series = test::collective("all_reduce", 64 * kMiB, 300.0, gpus);
  series["points"][0]["cv"] = 0.01;
  series["points"].push_back({{"bytes", 8}, {"in_place", false}, {"time_us", {{"median", 15.0}}}, {"algbw_gbps", 0.0},
                              {"busbw_gbps", 0.0005}, {"wrong", 0}, {"status", "ok"}});
  run.measurements["collectives"] = {series};
  run.measurements["telemetry"] = telemetry.doc;
  return run;
}

test::TelemetryJson two_steps(int gpus = 2) {
  test::TelemetryJson t(gpus);
  t.step("p2p", 0.5, 4.0).step("coll all_reduce", 4.2, 8.0);
  return t;
}

TEST(RuleTelemetry, HealthyTelemetryGivesNoFinding) {
  test::TelemetryJson t = two_steps();
  t.process(1001, "linkscope", 0, {0}, "started by the doctor for p2p");
  t.samples(0, {{0.0, -1, 0}, {1.0, 0, 95}, {4.1, -1, 90}, {5.0, 1, 99}});
  EXPECT_TRUE(findings(measured_run(t)).empty()) << text_of(findings(measured_run(t)).front());
}

TEST(RuleTelemetry, ForeignProcessNamesPidStepsAndSizesAndSaysTheNumbersDidNotMove) {
  test::TelemetryJson t = two_steps();
  t.process(1001, "linkscope", 1, {0}, "started by the doctor for p2p");
  t.process(777, "trainer", 1, {1});
  const auto f = finding(measured_run(t), "noisy-measurement");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(f->gpus, std::vector<int>{1});
  const std::string text = text_of(*f);
  EXPECT_NE(text.find("pid 777 trainer (2 GiB) is not the doctor's"), std::string::npos) << text;
  EXPECT_NE(text.find("during coll all_reduce (8 B - 64 MiB): its numbers did not move (CV at most 1.0% at >= 64 MiB)"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("pid 1001"), std::string::npos) << "the doctor's own child is not foreign: " << text;
  EXPECT_EQ(text.find("during p2p"), std::string::npos) << "the job was not seen during p2p: " << text;
  EXPECT_NE(f->title.find("coll all_reduce"), std::string::npos) << f->title;
  EXPECT_EQ(f->numbers["foreign_pids"], json::array({777}));
}

TEST(RuleTelemetry, ForeignProcessOnTheOnlyGpuIsFoundAndNumbersThatMovedAreSaid) {
  test::TelemetryJson t(1);
  t.step("p2p", 0.5, 4.0);
  t.process(4242, "python3", 0, {0});
  test::RunJson run = measured_run(t, 1);
  run.measurements["p2p"]["points"][1]["cv"] = 0.12;
  const auto f = finding(run, "noisy-measurement");
  ASSERT_TRUE(f.has_value());
  const std::string text = text_of(*f);
  EXPECT_NE(text.find("during p2p (1 MiB - 256 MiB): its numbers moved: CV up to 12% (ce GPU0->GPU0 at 256 MiB)"),
            std::string::npos)
      << text;
  EXPECT_EQ(f->gpus, std::vector<int>{0});
}

TEST(RuleTelemetry, LoadWhileNoStepRanIsForeignEvenWithoutAProcessList) {
  // A VM whose NVML lists no process: 85% utilization in the quiet window before the first step.
  test::TelemetryJson t = two_steps();
  t.samples(1, {{0.1, -1, 0}, {1.1, -1, 85}, {1.3, -1, 80}, {1.6, 0, 100}, {4.1, -1, 70}});
  t.doc["steps"][0]["start_s"] = 1.5;
  const auto f = finding(measured_run(t), "noisy-measurement");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(f->gpus, std::vector<int>{1});
  const std::string text = text_of(*f);
  EXPECT_NE(text.find("GPU1 (0000:01:00.0): 85% utilization from 1.1 s to 1.3 s while no linkscope step ran (NVML lists "
                      "no process that explains it"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("then, unless it stopped, alongside p2p (1 MiB - 256 MiB)"), std::string::npos) << text;
  EXPECT_NE(text.find("alongside coll all_reduce"), std::string::npos) << text;
  EXPECT_EQ(text.find("70%"), std::string::npos) << "4.1 s is 0.1 s after p2p ended: its own utilization: " << text;
}

TEST(RuleTelemetry, UtilizationJustAfterLinkscopesOwnWorkIsNotForeign) {
  test::TelemetryJson t = two_steps();
  t.samples(0, {{0.05, -1, 40}, {0.3, -1, 20}, {4.05, -1, 100}, {8.5, -1, 60}});
  EXPECT_FALSE(finding(measured_run(t), "noisy-measurement").has_value());
}

TEST(RuleTelemetry, MemoryHeldWhileNoLinkscopeProcessRunsIsForeign) {
  test::TelemetryJson t = two_steps();
  t.doc["steps"][0]["start_s"] = 2.0;
  t.samples(0, {{1.2, -1, 0, 6LL << 30}, {2.5, 0, 90, 20LL << 30}});
  const auto f = finding(measured_run(t), "noisy-measurement");
  ASSERT_TRUE(f.has_value());
  EXPECT_NE(text_of(*f).find("6 GiB of memory in use from 1.2 s"), std::string::npos) << text_of(*f);
}

TEST(RuleTelemetry, APidOfAnotherNamespaceIsForeignOnlyWhenNoStepChildCouldBeIt) {
  test::TelemetryJson within(2);
  within.step("p2p", 0.5, 4.0).step("coll all_reduce", 4.2, 8.0);
  within.process(99999, "", 0, {1}, "", false);
  auto f = finding(measured_run(within), "noisy-measurement");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->severity, Severity::kInfo) << "could be coll all_reduce's own child seen under its host pid";
  EXPECT_NE(text_of(*f).find("could not be attributed"), std::string::npos) << text_of(*f);
  EXPECT_TRUE(f->gpus.empty());

  test::TelemetryJson across = within;
  across.doc["processes"][0]["steps"] = {0, 1};
  f = finding(measured_run(across), "noisy-measurement");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(text_of(*f).find("listed during 2 steps"), std::string::npos) << text_of(*f);
}

TEST(RuleTelemetry, PcieCountersThatGrewCiteTheStep) {
  test::TelemetryJson t = two_steps();
  t.counters(1, 0, "after")["pcie_replay"] = 37;
  auto f = finding(measured_run(t), "pcie-errors-during-run");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_EQ(f->gpus, std::vector<int>{0});
  EXPECT_NE(text_of(*f).find("GPU0 (0000:00:00.0): PCIe replay counter +37 during coll all_reduce (8 B - 64 MiB)"),
            std::string::npos)
      << text_of(*f);
  t.counters(0, 1, "before")["aer_fatal"] = 0;
  t.counters(0, 1, "after")["aer_fatal"] = 1;
  f = finding(measured_run(t), "pcie-errors-during-run");
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(text_of(*f).find("PCIe AER fatal errors +1 during p2p"), std::string::npos) << text_of(*f);
}

TEST(RuleTelemetry, CountersThatGrewBetweenStepsAreSeenToo) {
  test::TelemetryJson t = two_steps();
  t.counters(1, 1, "before")["pcie_replay"] = 4;
  t.counters(1, 1, "after")["pcie_replay"] = 4;
  const auto f = finding(measured_run(t), "pcie-errors-during-run");
  ASSERT_TRUE(f.has_value());
  EXPECT_NE(text_of(*f).find("+4 between p2p and coll all_reduce"), std::string::npos) << text_of(*f);
}

TEST(RuleTelemetry, NvlinkCountersPerLinkWithRecoveryAnError) {
  test::TelemetryJson t = two_steps();
  const json links = {{{"link", 3}, {"replay", 0}, {"recovery", 0}, {"crc_flit", 10}}};
  for (int s = 0; s < 2; ++s) {
    for (const char* when : {"before", "after"}) t.counters(s, 1, when)["nvlinks"] = links;
  }
  t.counters(0, 1, "after")["nvlinks"][0]["crc_flit"] = 250;
  t.counters(1, 1, "before")["nvlinks"][0]["crc_flit"] = 250;
  t.counters(1, 1, "after")["nvlinks"][0]["crc_flit"] = 250;
  auto f = finding(measured_run(t), "nvlink-errors-during-run");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(text_of(*f).find("GPU1 (0000:01:00.0) link 3: NVLink CRC flit errors +240 during p2p (1 MiB - 256 MiB)"),
            std::string::npos)
      << text_of(*f);
  t.counters(1, 1, "after")["nvlinks"][0]["recovery"] = 2;
  f = finding(measured_run(t), "nvlink-errors-during-run");
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(f->next_command.find("nvidia-smi nvlink -e -i 1"), std::string::npos) << f->next_command;
}

TEST(RuleTelemetry, XidEventsWithTheirMeaningAndStep) {
  test::TelemetryJson t = two_steps();
  t.xid(1, 79, 5.5, 1);
  auto f = finding(measured_run(t), "xid-during-run");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(text_of(*f).find("GPU1 (0000:01:00.0): Xid 79 at 5.5 s during coll all_reduce (8 B - 64 MiB): GPU has fallen "
                             "off the bus"),
            std::string::npos)
      << text_of(*f);
  EXPECT_EQ(f->numbers["xid_counts"]["79"], 1);

  test::TelemetryJson app = two_steps();
  app.xid(0, 13, 2.0, 0).xid(0, 43, 2.1, 0);
  f = finding(measured_run(app), "xid-during-run");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->severity, Severity::kWarning) << "application faults";
  EXPECT_NE(f->explanation.find("usually the program"), std::string::npos) << f->explanation;

  test::TelemetryJson odd = two_steps();
  odd.xid(0, 4711, 9.0, std::nullopt);
  f = finding(measured_run(odd), "xid-during-run");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_NE(text_of(*f).find("while no linkscope step ran: Xid 4711 (not in linkscope's table"), std::string::npos)
      << text_of(*f);
}

TEST(RuleTelemetry, EccGrowthAndMemoryRepairs) {
  test::TelemetryJson t = two_steps();
  for (const char* when : {"before", "after"}) {
    t.counters(0, 0, when)["ecc_volatile_corrected"] = 4;
    t.counters(1, 0, when)["ecc_volatile_corrected"] = 4;
  }
  t.counters(1, 0, "after")["ecc_volatile_corrected"] = 9;
  auto f = finding(measured_run(t), "ecc-errors");
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->severity, Severity::kWarning);
  EXPECT_NE(text_of(*f).find("corrected ECC errors +5 during coll all_reduce"), std::string::npos) << text_of(*f);

  t.counters(1, 1, "after")["remapped_rows_pending"] = true;
  t.counters(1, 1, "after")["remapped_rows_uncorrectable"] = 1;
  f = finding(measured_run(t), "ecc-errors");
  EXPECT_NE(text_of(*f).find("GPU1 (0000:01:00.0): 1 row(s) remapped after uncorrectable errors; a row remapping waits "
                             "for a GPU reset"),
            std::string::npos)
      << text_of(*f);
  EXPECT_EQ(f->gpus, (std::vector<int>{0, 1}));

  t.counters(1, 1, "after")["remapped_rows_failure"] = true;
  EXPECT_EQ(finding(measured_run(t), "ecc-errors")->severity, Severity::kError);
  t.counters(1, 0, "after")["ecc_volatile_uncorrected"] = 1;
  t.counters(1, 0, "before")["ecc_volatile_uncorrected"] = 0;
  EXPECT_NE(text_of(*finding(measured_run(t), "ecc-errors")).find("uncorrected ECC errors +1"), std::string::npos);
}

TEST(RuleTelemetry, WithTelemetryTheDiscoverySnapshotIsNotUsedForForeignWork) {
  // Discovery saw a process that was gone before the first step; the telemetry saw nothing foreign.
  test::TelemetryJson t = two_steps();
  test::RunJson run = measured_run(t);
  run.system["gpus"][0]["processes"] = {{{"pid", 78}, {"name", "python3"}}};
  EXPECT_FALSE(finding(run, "noisy-measurement").has_value());
  run.measurements.erase("telemetry");
  EXPECT_TRUE(finding(run, "noisy-measurement").has_value()) << "without telemetry discovery's list is all there is";
}

}  // namespace
}  // namespace linkscope::diagnose
