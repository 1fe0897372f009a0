// The telemetry sampler end to end against the fake libnvidia-ml.so (the real dlopen loader, a scripted NVML whose
// readings, processes, counters and Xid events change over time): quantities a GPU does not support become
// unavailable with the reason, counters grow around steps, Xid events arrive with their step, a missing NVML is no
// failure, and a foreign job that starts mid-run is seen (and named by noisy-measurement) while the doctor's own
// children and grandchildren, recognized by pid and process group, are not.
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "core/subprocess.hpp"
#include "diagnose/context.hpp"
#include "diagnose/diagnose.hpp"
#include "diagnose_test_runs.hpp"
#include "discover/telemetry_sampler.hpp"
#include "support/temp_dir.hpp"

namespace linkscope::discover {
namespace {

using nlohmann::json;

// FAKE_NVML_SCRIPT for the test's lifetime (the fake reads it at every nvmlInit_v2).
class ScriptedNvml {
 public:
  ScriptedNvml(const test::TempDir& dir, const json& script) {
    const std::string path = dir.write("nvml-script.json", script.dump());
    setenv("FAKE_NVML_SCRIPT", path.c_str(), 1);
  }
  ~ScriptedNvml() { unsetenv("FAKE_NVML_SCRIPT"); }
  ScriptedNvml(const ScriptedNvml&) = delete;
  ScriptedNvml& operator=(const ScriptedNvml&) = delete;
};

TelemetryOptions fake_options(double interval_s, const std::string& sysfs_root = "/") {
  TelemetryOptions options;
  options.nvml_library = LINKSCOPE_FAKE_NVML;
  options.interval_s = interval_s;
  options.sysfs_root = sysfs_root;
  // As the doctor passes them: the GPUs CUDA shows, with their ordinals (the fake's bus ids, canonical).
  options.gpus = {{0, 0, "0000:00:06.0", "GPU-db0b843c-9616-d6f1-74d8-de3fe79dca28"},
                  {1, 1, "0000:00:07.0", "GPU-005980e6-efd3-0254-f791-a39d369f7e24"}};
  return options;
}

void sleep_until(std::chrono::steady_clock::time_point start, double seconds) {
  std::this_thread::sleep_until(start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                            std::chrono::duration<double>(seconds)));
}

TEST(TelemetrySampler, ReadsScriptedValuesAndRecordsWhatIsUnsupported) {
  const test::TempDir dir;
  dir.write("sys/bus/pci/devices/0000:00:06.0/aer_dev_correctable", "BadTLP 1\nTOTAL_ERR_COR 1\n");
  dir.write("sys/bus/pci/devices/0000:00:06.0/aer_dev_nonfatal", "TOTAL_ERR_NONFATAL 0\n");
  dir.write("sys/bus/pci/devices/0000:00:06.0/aer_dev_fatal", "TOTAL_ERR_FATAL 0\n");
  const ScriptedNvml nvml(dir, {{"timeline", {{{"at_s", 0}, {"processes", json::array()}},
                                              {{"at_s", 0}, {"gpu", 1}, {"utilization_gpu", 90}, {"sm_clock_mhz", 1980},
                                               {"clocks_event_reasons", 0x4}, {"memory_used_bytes", 3LL << 30}}}},
                                {"unsupported", {"power", "events", "retired_pages"}}});
  TelemetrySampler sampler(fake_options(0, dir.path()));
  sampler.start();
  sampler.sample_once();
  sampler.begin_step("p2p");
  sampler.end_step();
  const model::Telemetry t = sampler.finish();

  EXPECT_TRUE(t.unavailable.empty()) << t.unavailable;
  ASSERT_EQ(t.gpus.size(), 2u);
  EXPECT_EQ(t.passes, 2u) << "the first pass at start, one by hand";
  const model::TelemetryGpu& gpu1 = t.gpus[1];
  ASSERT_FALSE(gpu1.samples.empty());
  const model::TelemetrySample& s = gpu1.samples.back();
  EXPECT_EQ(s.gpu_util_percent, 90);
  EXPECT_EQ(s.sm_clock_mhz, 1980);
  EXPECT_EQ(s.temperature_c, 30);
  EXPECT_EQ(s.memory_used_bytes, 3LL << 30);
  EXPECT_EQ(s.throttle_reasons, std::vector<std::string>{"sw_power_cap"});
  EXPECT_FALSE(s.power_w.has_value());
  ASSERT_EQ(gpu1.unavailable.count("power_w"), 1u);
  EXPECT_EQ(gpu1.unavailable.at("power_w"), "nvmlDeviceGetPowerUsage: Not Supported");
  EXPECT_NE(gpu1.unavailable.at("retired_pages_double_bit").find("Not Supported"), std::string::npos);
  EXPECT_NE(gpu1.unavailable.at("aer_correctable").find("aer_dev_correctable is missing"), std::string::npos);
  EXPECT_EQ(t.gpus[0].unavailable.count("aer_correctable"), 0u) << "GPU0's AER files exist";
  EXPECT_NE(t.xid_unavailable.find("does not report Xid events"), std::string::npos) << t.xid_unavailable;
  ASSERT_EQ(t.steps.size(), 1u);
  ASSERT_TRUE(t.steps[0].gpus[0].after.has_value());
  EXPECT_EQ((*t.steps[0].gpus[0].after)[model::GpuCounter::kAerCorrectable], 1);
  EXPECT_EQ(t.steps[0].gpus[0].before.nvlinks.size(), 18u);
  EXPECT_TRUE(t.processes.empty());
}

TEST(TelemetrySampler, CountersReadAroundAStepShowWhatGrewDuringIt) {
  const test::TempDir dir;
  const ScriptedNvml nvml(dir, {{"timeline",
                                 {{{"at_s", 0.3}, {"gpu", 0}, {"pcie_replay", 3}, {"ecc_volatile_corrected", 2},
                                   {"nvlink_crc_flit", {{"2", 5}}}, {"remapped_rows_pending", true}}}}});
  TelemetrySampler sampler(fake_options(0));
  const auto start = std::chrono::steady_clock::now();
  sampler.start();
  sampler.begin_step("coll all_reduce");
  sleep_until(start, 0.45);
  sampler.end_step();
  const model::Telemetry t = sampler.finish();
  ASSERT_EQ(t.steps.size(), 1u);
  const auto& g0 = t.steps[0].gpus[0];
  ASSERT_TRUE(g0.after.has_value());
  const auto increases = model::counter_increases(g0.before, *g0.after);
  ASSERT_EQ(increases.size(), 3u);
  EXPECT_EQ(increases[0].quantity, "pcie_replay");
  EXPECT_EQ(increases[0].increase, 3);
  EXPECT_EQ(increases[1].quantity, "ecc_volatile_corrected");
  EXPECT_EQ(increases[2].quantity, "nvlink_crc_flit");
  EXPECT_EQ(increases[2].link, 2);
  EXPECT_EQ((*g0.after)[model::GpuFlag::kRemappedRowsPending], true);
  EXPECT_TRUE(model::counter_increases(t.steps[0].gpus[1].before, *t.steps[0].gpus[1].after).empty());
  EXPECT_TRUE(t.cost.counters_wall_us_median.has_value());
}

TEST(TelemetrySampler, XidEventsArriveWithTheStepTheyHappenedIn) {
  const test::TempDir dir;
  const ScriptedNvml nvml(dir, {{"timeline", {{{"at_s", 0.25}, {"gpu", 1}, {"xid", 79}}}}});
  TelemetrySampler sampler(fake_options(0.05));
  const auto start = std::chrono::steady_clock::now();
  sampler.start();
  EXPECT_TRUE(sampler.sampling());
  sampler.begin_step("coll all_reduce");
  sleep_until(start, 0.6);
  sampler.end_step();
  const model::Telemetry t = sampler.finish();
  EXPECT_TRUE(t.xid_unavailable.empty()) << t.xid_unavailable;
  ASSERT_EQ(t.xid_events.size(), 1u);
  EXPECT_EQ(t.xid_events[0].xid, 79);
  EXPECT_EQ(t.xid_events[0].nvml_index, 1);
  EXPECT_EQ(t.xid_events[0].step, 0);
  EXPECT_GE(t.xid_events[0].t_s, 0.24);
  EXPECT_GE(t.passes, 5u) << "the thread kept sampling while it waited for events";
  EXPECT_GT(t.cost.cpu_seconds, 0);
  ASSERT_TRUE(t.cost.pass_cpu_us_median.has_value());
}

TEST(TelemetrySampler, WithoutNvmlNothingFailsAndTheReasonIsKept) {
  TelemetryOptions options = fake_options(0.05);
  options.nvml_library = "/nonexistent/libnvidia-ml.so.1";
  TelemetrySampler sampler(options);
  sampler.start();
  EXPECT_FALSE(sampler.sampling());
  sampler.begin_step("p2p");
  sampler.add_own_pid(12345);
  sampler.end_step();
  const model::Telemetry t = sampler.finish();
  EXPECT_NE(t.unavailable.find("dlopen(/nonexistent/libnvidia-ml.so.1) failed"), std::string::npos) << t.unavailable;
  EXPECT_TRUE(t.gpus.empty());
  ASSERT_EQ(t.steps.size(), 1u);
  EXPECT_EQ(t.steps[0].pids, std::vector<std::int64_t>{12345});
}

// A process that is not a descendant of this one (double fork, own session): a foreign job. Returns its pid.
pid_t start_foreign_job(double seconds) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return -1;
  const pid_t first = fork();
  if (first == 0) {
    setsid();
    const pid_t job = fork();
    if (job == 0) {
      const std::string duration = std::to_string(seconds);
      execl("/bin/sleep", "sleep", duration.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    (void)!write(pipe_fds[1], &job, sizeof job);
    _exit(0);
  }
  pid_t job = -1;
  (void)!read(pipe_fds[0], &job, sizeof job);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  waitpid(first, nullptr, 0);
  return job;
}

void write_pid(const std::string& path, long pid) {
  std::ofstream(path + ".tmp") << pid << "\n";
  std::filesystem::rename(path + ".tmp", path);
}

// One doctor step: a child shell (registered as the doctor's through on_start) whose own child sleeps; both are
// listed by the fake NVML on GPU 0 while they live, the child on GPU 1 too.
void run_step(TelemetrySampler& sampler, const std::string& name, const test::TempDir& dir) {
  const std::string child_pid = dir.path() + "/child.pid";
  const std::string grandchild_pid = dir.path() + "/grandchild.pid";
  sampler.begin_step(name);
  ChildSpec spec;
  spec.program = "/bin/sh";
  spec.args = {"-c", "sleep 0.4 & echo $! > " + grandchild_pid + ".tmp; mv " + grandchild_pid + ".tmp " +
                         grandchild_pid + "; wait; rm -f " + grandchild_pid};
  spec.on_start = [&](pid_t pid) {
    sampler.add_own_pid(pid);
    write_pid(child_pid, pid);
  };
  const ChildResult result = run_child(spec);
  std::filesystem::remove(child_pid);
  sampler.end_step();
  ASSERT_EQ(result.exit_code, 0) << result.err;
}

TEST(TelemetrySamplerRun, AForeignJobStartingMidRunIsSeenAndTheDoctorsOwnProcessesAreNot) {
  const test::TempDir dir;
  const std::string child = dir.path() + "/child.pid", grandchild = dir.path() + "/grandchild.pid",
                    foreign = dir.path() + "/foreign.pid";
  const ScriptedNvml nvml(
      dir, {{"timeline",
             {{{"at_s", 0}, {"processes", json::array()}},
              {{"at_s", 0}, {"gpu", 0}, {"processes", {{{"pid_file", child}, {"used_memory_bytes", 1LL << 30}},
                                                        {{"pid_file", grandchild}}}}},
              {{"at_s", 0}, {"gpu", 1}, {"processes", {{{"pid_file", child}}}}},
              {{"at_s", 0.85}, {"gpu", 1}, {"utilization_gpu", 95},
               {"processes", {{{"pid_file", child}}, {{"pid_file", foreign}, {"name", "trainer"},
                                                       {"used_memory_bytes", 8LL << 30}}}}}}}});
  TelemetrySampler sampler(fake_options(0.05));
  const auto start = std::chrono::steady_clock::now();
  sampler.start();
  sampler.wait_until(0.2);
  run_step(sampler, "p2p", dir);  // ~0.2 - 0.65 s: the foreign job has not started
  sleep_until(start, 0.8);
  const pid_t job = start_foreign_job(30);
  ASSERT_GT(job, 0);
  write_pid(foreign, job);
  sleep_until(start, 0.9);
  run_step(sampler, "coll all_reduce", dir);
  const model::Telemetry telemetry = sampler.finish();
  kill(job, SIGKILL);

  ASSERT_EQ(telemetry.steps.size(), 2u);
  const model::TelemetryProcess* trainer = nullptr;
  int own = 0;
  for (const auto& p : telemetry.processes) {
    if (p.pid == job) {
      trainer = &p;
    } else {
      ++own;
      EXPECT_TRUE(p.own()) << "pid " << p.pid << " is the doctor's child or grandchild";
    }
  }
  EXPECT_GE(own, 4) << "two steps, each with a child (on two GPUs) and a grandchild";
  ASSERT_NE(trainer, nullptr) << "the foreign job was not seen";
  EXPECT_FALSE(trainer->own());
  EXPECT_TRUE(trainer->visible);
  EXPECT_EQ(trainer->name, "trainer");
  EXPECT_EQ(trainer->nvml_index, 1);
  EXPECT_EQ(trainer->steps, std::vector<int>{1}) << "seen during coll all_reduce only";
  EXPECT_GE(trainer->first_seen_s, 0.85);
  bool grandchild_by_group = false;
  for (const auto& p : telemetry.processes) {
    if (p.owner.rfind("in the process group of pid", 0) == 0) grandchild_by_group = true;
  }
  EXPECT_TRUE(grandchild_by_group);

  // The diagnosis of a run carrying this telemetry names the job, its step and sizes, and none of the doctor's pids.
  test::RunJson bent = test::nvswitch_run(2);
  bent.measurements["collectives"] = {test::collective("all_reduce", 256 * test::kMiB, 150.0)};
  model::Run run = bent.typed();
  run.measurements.telemetry = telemetry;
  const diagnose::Context context(run);
  EXPECT_EQ(context.busy_gpus, std::vector<int>{1});
  const auto findings = diagnose::find_problems(run);
  const auto noisy = std::find_if(findings.begin(), findings.end(),
                                  [](const model::Finding& f) { return f.id == "noisy-measurement"; });
  ASSERT_NE(noisy, findings.end());
  std::string text = noisy->title + "\n" + noisy->cause;
  for (const auto& line : noisy->evidence) text += "\n" + line;
  EXPECT_NE(text.find("pid " + std::to_string(job) + " trainer"), std::string::npos) << text;
  EXPECT_NE(text.find("during coll all_reduce (256 MiB)"), std::string::npos) << text;
  for (const auto pid : telemetry.own_pids) {
    EXPECT_EQ(text.find("pid " + std::to_string(pid)), std::string::npos) << "the doctor's child " << pid << ": " << text;
  }
}

}  // namespace
}  // namespace linkscope::discover
