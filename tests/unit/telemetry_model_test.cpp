// measurements.telemetry: written and read back to the same document, kept within a Run, damaged documents refused
// naming the field; counter increases; downsampling that keeps peaks and never crosses a step; the Xid table.
#include <gtest/gtest.h>

#include "core/error.hpp"
#include "model/run.hpp"
#include "model/telemetry.hpp"
#include "model/telemetry_downsample.hpp"
#include "model/xid_codes.hpp"

namespace linkscope::model {
namespace {

using nlohmann::json;

GpuCounters counters(std::int64_t replay, std::int64_t crc_link2) {
  GpuCounters c;
  c[GpuCounter::kPcieReplay] = replay;
  c[GpuCounter::kAerCorrectable] = 0;
  c[GpuFlag::kRemappedRowsPending] = false;
  LinkCounters link;
  link.link = 2;
  link[LinkCounter::kCrcFlit] = crc_link2;
  link[LinkCounter::kReplay] = 0;
  c.nvlinks.push_back(link);
  return c;
}

TelemetrySample sample(double t, std::optional<int> step, int util, int sm_clock) {
  TelemetrySample s;
  s.t_s = t;
  s.step = step;
  s.gpu_util_percent = util;
  s.memory_util_percent = util / 2;
  s.sm_clock_mhz = sm_clock;
  s.memory_clock_mhz = 3201;
  s.power_w = 75.5 + util;
  s.temperature_c = 31;
  s.memory_used_bytes = 1LL << 30;
  s.throttle_reasons = util == 0 ? std::vector<std::string>{"gpu_idle"} : std::vector<std::string>{};
  return s;
}

Telemetry full_telemetry() {
  Telemetry t;
  t.interval_s = 0.1;
  t.started_at = "2026-12-05T10:00:00Z";
  t.duration_s = 3.2;
  t.passes = 32;
  t.max_samples_per_gpu = 600;
  t.cost.cpu_seconds = 0.004;
  t.cost.pass_cpu_us_median = 95;
  t.cost.pass_cpu_us_max = 400;
  t.cost.pass_wall_us_median = 120;
  t.cost.pass_wall_us_max = 700;
  t.cost.counters_wall_us_median = 300;
  t.doctor_pid = 1200;
  t.own_pids = {1201, 1250};
  t.xid_unavailable = "";
  TelemetryGpu gpu;
  gpu.nvml_index = 0;
  gpu.cuda_ordinal = 0;
  gpu.pci_bdf = "0000:06:00.0";
  gpu.uuid = "GPU-db0b";
  gpu.unavailable = {{"power_w", "nvmlDeviceGetPowerUsage: Not Supported"}};
  gpu.samples = {sample(0.0, std::nullopt, 0, 345), sample(0.1, 0, 97, 1980)};
  gpu.samples[1].power_w.reset();  // a reading that was unavailable stays absent
  t.gpus.push_back(gpu);
  TelemetryStep step;
  step.name = "p2p";
  step.start_s = 0.05;
  step.end_s = 3.0;
  step.pids = {1201};
  step.gpus.push_back({0, counters(0, 10), counters(3, 15)});
  t.steps.push_back(step);
  TelemetryProcess p;
  p.pid = 4242;
  p.name = "python3";
  p.nvml_index = 0;
  p.visible = true;
  p.first_seen_s = 1.0;
  p.last_seen_s = 2.5;
  p.samples = 16;
  p.steps = {0};
  p.max_used_memory_bytes = 1LL << 30;
  t.processes.push_back(p);
  TelemetryProcess own = p;
  own.pid = 1201;
  own.owner = "started by the doctor for p2p";
  t.processes.push_back(own);
  t.xid_events.push_back({2.0, 0, 79, 0});
  return t;
}

Telemetry reread(const Telemetry& t) { return telemetry_from_json(JsonReader::root(to_json(t), "round trip")); }

TEST(TelemetryModel, WritesAndReadsBackTheSameDocument) {
  const Telemetry t = full_telemetry();
  const json document = to_json(t);
  EXPECT_EQ(to_json(reread(t)), document);
  EXPECT_EQ(document["gpus"][0]["samples"]["gpu_util_percent"], json::array({0, 97}));
  EXPECT_TRUE(document["gpus"][0]["samples"]["power_w"][1].is_null());
  EXPECT_EQ(document["steps"][0]["gpus"][0]["increases"].dump(),
            R"([{"counter":"pcie_replay","increase":3},{"counter":"nvlink_crc_flit","increase":5,"link":2}])");
  EXPECT_EQ(document["xid_events"][0]["meaning"], "GPU has fallen off the bus: it stopped answering on PCIe");
  const Telemetry back = reread(t);
  EXPECT_EQ(back.processes[1].owner, "started by the doctor for p2p");
  EXPECT_TRUE(back.processes[1].own());
  EXPECT_FALSE(back.processes[0].own());
  EXPECT_EQ(back.gpus[0].samples[1].step, 0);
  EXPECT_FALSE(back.gpus[0].samples[0].step.has_value());
}

TEST(TelemetryModel, IsPartOfTheRunsMeasurements) {
  model::Run run = make_run("doctor", {"linkscope", "doctor"});
  run.measurements.telemetry = full_telemetry();
  const json document = to_json(run);
  ASSERT_TRUE(document["measurements"].contains("telemetry"));
  const model::Run back = run_from_json(document, "run.json");
  ASSERT_TRUE(back.measurements.telemetry.has_value());
  EXPECT_TRUE(back.measurements.extra.empty()) << back.measurements.extra.dump();
  EXPECT_EQ(to_json(back), document);
  EXPECT_TRUE(back.measurements.empty()) << "telemetry alone is not a measurement";
}

TEST(TelemetryModel, KeepsFieldsOfANewerDocument) {
  json document = to_json(full_telemetry());
  document["fan_samples"] = 3;
  document["gpus"][0]["fan_percent"] = 40;
  document["steps"][0]["exit_code"] = 0;
  document["processes"][0]["cgroup"] = "/slurm/job1";
  const json again = to_json(telemetry_from_json(JsonReader::root(document, "newer.json")));
  EXPECT_EQ(again["fan_samples"], 3);
  EXPECT_EQ(again["gpus"][0]["fan_percent"], 40);
  EXPECT_EQ(again["steps"][0]["exit_code"], 0);
  EXPECT_EQ(again["processes"][0]["cgroup"], "/slurm/job1");
}

TEST(TelemetryModel, RefusesADamagedDocumentNamingTheField) {
  json document = to_json(full_telemetry());
  document["gpus"][0]["samples"]["sm_clock_mhz"] = json::array({345});  // one value for two samples
  try {
    telemetry_from_json(JsonReader::root(document, "run.json"));
    FAIL() << "a column of the wrong length was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("gpus[0].samples.sm_clock_mhz"), std::string::npos) << e.what();
  }
  document = to_json(full_telemetry());
  document["steps"][0]["gpus"][0]["before"]["pcie_replay"] = "many";
  EXPECT_THROW(telemetry_from_json(JsonReader::root(document, "run.json")), InputError);
}

TEST(TelemetryModel, CounterIncreasesNeedBothReadings) {
  GpuCounters before = counters(5, 10);
  GpuCounters after = counters(5, 12);
  after[GpuCounter::kAerFatal] = 1;  // not read before: no increase can be claimed
  after[GpuCounter::kAerCorrectable] = 2;
  const auto increases = counter_increases(before, after);
  ASSERT_EQ(increases.size(), 2u);
  EXPECT_EQ(increases[0].quantity, "aer_correctable");
  EXPECT_EQ(increases[0].increase, 2);
  EXPECT_EQ(increases[1].quantity, "nvlink_crc_flit");
  EXPECT_EQ(increases[1].link, 2);
  EXPECT_EQ(increases[1].increase, 2);
  EXPECT_TRUE(counter_increases(after, before).size() == 0u) << "a counter that went down (a reset) is no increase";
}

TEST(TelemetryDownsample, BoundsTheCountAndKeepsPeaks) {
  std::vector<TelemetrySample> samples;
  for (int i = 0; i < 1000; ++i) samples.push_back(sample(i * 0.1, std::nullopt, i == 501 ? 99 : 1, i == 502 ? 300 : 1980));
  downsample(samples, 100);
  EXPECT_LE(samples.size(), 100u);
  EXPECT_GE(samples.size(), 50u);
  int max_util = 0, min_clock = 100000;
  for (const auto& s : samples) {
    max_util = std::max(max_util, s.gpu_util_percent.value_or(0));
    min_clock = std::min(min_clock, s.sm_clock_mhz.value_or(100000));
  }
  EXPECT_EQ(max_util, 99);
  EXPECT_EQ(min_clock, 300);
  EXPECT_DOUBLE_EQ(samples.front().t_s, 0.0);
  EXPECT_NEAR(samples.back().t_s + samples.back().span_s, 99.9, 1e-9);
}

TEST(TelemetryDownsample, NeverMergesAcrossAStepBoundary) {
  std::vector<TelemetrySample> samples;
  for (int i = 0; i < 40; ++i) samples.push_back(sample(i * 0.1, i < 10 ? std::optional<int>() : std::optional<int>(i / 10), 5, 1980));
  downsample(samples, 4);
  ASSERT_EQ(samples.size(), 4u) << "one sample per step window remains";
  EXPECT_FALSE(samples[0].step.has_value());
  for (int i = 1; i < 4; ++i) EXPECT_EQ(samples[static_cast<std::size_t>(i)].step, i);
  std::vector<TelemetrySample> alternating;
  for (int i = 0; i < 10; ++i) alternating.push_back(sample(i * 0.1, i % 2 == 0 ? std::optional<int>(i) : std::nullopt, 5, 1980));
  downsample(alternating, 2);
  EXPECT_EQ(alternating.size(), 10u) << "nothing can be merged: more step boundaries than the bound";
}

TEST(XidCodes, OneTableWithMeaningsAndSeverities) {
  for (const int code : {13, 31, 43, 48, 61, 62, 63, 64, 74, 79, 92, 93, 94, 95, 119, 120}) {
    const auto entry = xid_code(code);
    ASSERT_TRUE(entry.has_value()) << code;
    EXPECT_FALSE(entry->meaning.empty()) << code;
    EXPECT_FALSE(entry->action.empty()) << code;
  }
  EXPECT_EQ(xid_code(79)->severity, Severity::kError);
  EXPECT_EQ(xid_code(13)->severity, Severity::kWarning) << "an application fault, usually";
  EXPECT_FALSE(xid_code(12345).has_value());
  EXPECT_NE(xid_meaning(12345).find("not in linkscope's table"), std::string::npos);
}

}  // namespace
}  // namespace linkscope::model
