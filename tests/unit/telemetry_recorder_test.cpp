// The sampler's parts without NVML: which pid is the doctor's (process tree in a fake /proc, never the name), PCIe
// AER totals from a fake sysfs, and the recorder's bookkeeping of passes, steps, processes, Xid events and costs.
#include <gtest/gtest.h>

#include "discover/pcie_aer.hpp"
#include "discover/process_ownership.hpp"
#include "discover/telemetry_recorder.hpp"
#include "support/temp_dir.hpp"

namespace linkscope::discover {
namespace {

// /proc/<pid>/stat and comm as the kernel writes them: "pid (comm) state ppid pgrp session ...".
void fake_process(const test::TempDir& root, int pid, const std::string& comm, int ppid, int pgrp) {
  root.write("proc/" + std::to_string(pid) + "/stat",
             std::to_string(pid) + " (" + comm + ") S " + std::to_string(ppid) + " " + std::to_string(pgrp) + " 1 0 -1\n");
  root.write("proc/" + std::to_string(pid) + "/comm", comm + "\n");
}

TEST(ProcessOwnership, DecidesByPidAndProcessTreeNotByName) {
  const test::TempDir root;
  fake_process(root, 100, "linkscope", 1, 100);          // the doctor
  fake_process(root, 200, "linkscope", 100, 200);        // a step's child (its own process group)
  fake_process(root, 201, "python3", 200, 200);          // that child's child, in its group
  fake_process(root, 250, "bash", 100, 250);             // something else the doctor ran
  fake_process(root, 300, "nccl) (probe", 250, 250);     // its child, with a name full of parentheses
  fake_process(root, 400, "linkscope", 1, 400);          // another user's linkscope: foreign
  ProcessOwnership ownership(SysfsRoot(root.path()), 100);
  ownership.add_child(200, "coll all_reduce");

  EXPECT_EQ(ownership.classify(100).owner, "the doctor");
  EXPECT_EQ(ownership.classify(200).owner, "started by the doctor for coll all_reduce");
  EXPECT_EQ(ownership.classify(201).owner, "in the process group of pid 200 (started by the doctor for coll all_reduce)");
  EXPECT_EQ(ownership.classify(300).owner, "descendant of pid 100");
  EXPECT_EQ(ownership.classify(300).comm, "nccl) (probe");
  const ProcessOwner other = ownership.classify(400);
  EXPECT_TRUE(other.visible);
  EXPECT_TRUE(other.owner.empty()) << "named linkscope, but not the doctor's";
  const ProcessOwner elsewhere = ownership.classify(4242);  // no /proc entry: another PID namespace
  EXPECT_FALSE(elsewhere.visible);
  EXPECT_TRUE(elsewhere.owner.empty());
}

TEST(PcieAer, ReadsTheTotalsAndSaysWhyWhenAbsent) {
  const test::TempDir root;
  const std::string device = "sys/bus/pci/devices/0000:06:00.0/";
  root.write(device + "aer_dev_correctable",
             "RxErr 0\nBadTLP 3\nBadDLLP 4\nRollover 0\nTimeout 0\nNonFatalErr 0\nCorrIntErr 0\nHeaderOF 0\nTOTAL_ERR_COR 7\n");
  root.write(device + "aer_dev_fatal", "Undefined 0\nDLP 0\nTOTAL_ERR_FATAL 0\n");
  model::GpuCounters counters;
  std::map<std::string, std::string> unavailable;
  read_aer_counters(SysfsRoot(root.path()), "0000:06:00.0", counters, unavailable);
  EXPECT_EQ(counters[model::GpuCounter::kAerCorrectable], 7);
  EXPECT_EQ(counters[model::GpuCounter::kAerFatal], 0);
  EXPECT_FALSE(counters[model::GpuCounter::kAerNonfatal].has_value());
  ASSERT_EQ(unavailable.count("aer_nonfatal"), 1u);
  EXPECT_NE(unavailable["aer_nonfatal"].find("aer_dev_nonfatal is missing"), std::string::npos) << unavailable["aer_nonfatal"];
}

model::TelemetryGpu identity(int index) {
  model::TelemetryGpu g;
  g.nvml_index = index;
  g.cuda_ordinal = index;
  g.pci_bdf = "0000:0" + std::to_string(6 + index) + ":00.0";
  return g;
}

GpuPass pass_of(int index, int util, std::vector<ProcessSighting> processes) {
  GpuPass pass;
  pass.nvml_index = index;
  pass.sample.gpu_util_percent = util;
  pass.sample.sm_clock_mhz = 1980;
  pass.processes = std::move(processes);
  return pass;
}

StepCounters counters_of(int index, std::int64_t replay) {
  StepCounters c;
  c.nvml_index = index;
  c.counters[model::GpuCounter::kPcieReplay] = replay;
  return c;
}

TEST(TelemetryRecorder, RecordsStepsProcessesAndEvents) {
  TelemetryRecorder recorder({identity(0), identity(1)}, 0.1, 600, "2026-12-05T10:00:00Z", 100);
  const ProcessSighting foreign{777, 2LL << 30, "trainer", "", true};
  recorder.add_pass(0.0, recorder.running_step(), {pass_of(0, 0, {}), pass_of(1, 0, {})});
  recorder.begin_step("p2p", 0.2, {counters_of(0, 0), counters_of(1, 5)});
  recorder.add_own_pid(200, "started by the doctor for p2p");
  const ProcessSighting child{200, 1LL << 30, "linkscope", "started by the doctor for p2p", true};
  recorder.add_pass(0.3, recorder.running_step(), {pass_of(0, 90, {child}), pass_of(1, 95, {foreign})});
  recorder.add_xid(0.35, 1, 79);
  recorder.end_step(0.5, {counters_of(0, 0), counters_of(1, 9)});
  recorder.add_pass(0.6, recorder.running_step(), {pass_of(0, 0, {}), pass_of(1, 97, {foreign})});
  recorder.begin_step("coll all_reduce", 0.7, {counters_of(0, 0), counters_of(1, 9)});
  // A pass that began while the step ran and was recorded after it ended counts for the step.
  const auto during = recorder.running_step();
  recorder.end_step(0.9, {counters_of(0, 0), counters_of(1, 9)});
  recorder.add_pass(0.8, during, {pass_of(0, 50, {}), pass_of(1, 97, {foreign})});
  recorder.add_pass_cost(80, 100);
  recorder.add_pass_cost(120, 160);
  recorder.add_counter_cost(300);

  const model::Telemetry t = recorder.snapshot(1.0, 0.002);
  EXPECT_EQ(t.passes, 4u);
  ASSERT_EQ(t.steps.size(), 2u);
  EXPECT_EQ(t.steps[0].pids, std::vector<std::int64_t>{200});
  EXPECT_EQ(t.own_pids, std::vector<std::int64_t>{200});
  ASSERT_TRUE(t.steps[0].gpus[1].after.has_value());
  const auto increases = model::counter_increases(t.steps[0].gpus[1].before, *t.steps[0].gpus[1].after);
  ASSERT_EQ(increases.size(), 1u);
  EXPECT_EQ(increases[0].increase, 4);
  ASSERT_EQ(t.processes.size(), 2u);
  const model::TelemetryProcess& trainer = t.processes[1];
  EXPECT_EQ(trainer.pid, 777);
  EXPECT_EQ(trainer.samples, 3);
  EXPECT_EQ(trainer.steps, (std::vector<int>{0, 1}));
  EXPECT_EQ(trainer.samples_outside_steps, 1);
  EXPECT_DOUBLE_EQ(trainer.first_seen_s, 0.3);
  EXPECT_DOUBLE_EQ(trainer.last_seen_s, 0.8);
  EXPECT_EQ(trainer.max_used_memory_bytes, 2LL << 30);
  EXPECT_TRUE(t.processes[0].own());
  ASSERT_EQ(t.xid_events.size(), 1u);
  EXPECT_EQ(t.xid_events[0].step, 0);
  ASSERT_EQ(t.gpus[1].samples.size(), 4u);
  EXPECT_FALSE(t.gpus[1].samples[0].step.has_value());
  EXPECT_EQ(t.gpus[1].samples[1].step, 0);
  EXPECT_EQ(t.gpus[1].samples[3].step, 1);
  EXPECT_EQ(t.cost.pass_cpu_us_median, 100);
  EXPECT_EQ(t.cost.pass_cpu_us_max, 120);
  EXPECT_EQ(t.cost.counters_wall_us_median, 300);
  EXPECT_DOUBLE_EQ(t.cost.cpu_seconds, 0.002);
}

TEST(TelemetryRecorder, RegisteringAPidMarksWhatWasAlreadySeenAndClosesOpenSteps) {
  TelemetryRecorder recorder({identity(0)}, 0.1, 4, "", 100);
  recorder.begin_step("p2p", 0.0, {});
  recorder.add_pass(0.1, recorder.running_step(), {pass_of(0, 10, {{300, std::nullopt, "", "", false}})});
  recorder.add_own_pid(300, "started by the doctor for p2p");
  recorder.begin_step("patterns", 0.5, {});  // p2p never ended: it ends where patterns begins
  for (int i = 0; i < 20; ++i) recorder.add_pass(0.6 + i * 0.1, recorder.running_step(), {pass_of(0, i, {})});
  const model::Telemetry t = recorder.snapshot(3.0, 0);
  EXPECT_TRUE(t.processes[0].own());
  ASSERT_EQ(t.steps.size(), 2u);
  EXPECT_EQ(t.steps[0].end_s, 0.5);
  EXPECT_FALSE(t.steps[1].end_s.has_value()) << "still running at the snapshot";
  EXPECT_LE(t.gpus[0].samples.size(), 4u);
  EXPECT_EQ(t.gpus[0].samples.back().gpu_util_percent, 19) << "the peak survives downsampling";
}

}  // namespace
}  // namespace linkscope::discover
