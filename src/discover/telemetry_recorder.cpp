#include "discover/telemetry_recorder.hpp"

#include <algorithm>

#include "core/statistics.hpp"
#include "model/telemetry_downsample.hpp"

namespace linkscope::discover {

namespace {

// Median and largest value, when there is any.
void summarize_into(const std::vector<double>& values, std::optional<double>& median, std::optional<double>* max) {
  if (values.empty()) return;
  const Summary summary = summarize(values);
  median = summary.median;
  if (max != nullptr) *max = summary.max;
}

}  // namespace

TelemetryRecorder::TelemetryRecorder(std::vector<model::TelemetryGpu> gpus, double interval_s,
                                     std::size_t max_samples_per_gpu, std::string started_at, std::int64_t doctor_pid) {
  telemetry_.gpus = std::move(gpus);
  telemetry_.interval_s = interval_s;
  telemetry_.max_samples_per_gpu = max_samples_per_gpu;
  telemetry_.started_at = std::move(started_at);
  telemetry_.doctor_pid = doctor_pid;
}

model::TelemetryGpu* TelemetryRecorder::gpu(int nvml_index) {
  for (auto& g : telemetry_.gpus) {
    if (g.nvml_index == nvml_index) return &g;
  }
  return nullptr;
}

void TelemetryRecorder::merge_unavailable(model::TelemetryGpu& g, const std::map<std::string, std::string>& reasons) {
  for (const auto& [quantity, reason] : reasons) g.unavailable.emplace(quantity, reason);  // the first reason stays
}

std::optional<int> TelemetryRecorder::running_step() const {
  if (telemetry_.steps.empty() || telemetry_.steps.back().end_s) return std::nullopt;
  return static_cast<int>(telemetry_.steps.size() - 1);
}

void TelemetryRecorder::record_process(const ProcessSighting& seen, int nvml_index, double t_s,
                                       std::optional<int> step) {
  auto it = std::find_if(telemetry_.processes.begin(), telemetry_.processes.end(),
                         [&](const model::TelemetryProcess& p) { return p.pid == seen.pid && p.nvml_index == nvml_index; });
  if (it == telemetry_.processes.end()) {
    model::TelemetryProcess process;
    process.pid = seen.pid;
    process.nvml_index = nvml_index;
    process.name = seen.name;
    process.owner = seen.owner;
    process.visible = seen.visible;
    process.first_seen_s = t_s;
    telemetry_.processes.push_back(std::move(process));
    it = std::prev(telemetry_.processes.end());
  }
  model::TelemetryProcess& p = *it;
  p.last_seen_s = t_s;
  ++p.samples;
  if (seen.used_memory_bytes) {
    p.max_used_memory_bytes = std::max(p.max_used_memory_bytes.value_or(0), *seen.used_memory_bytes);
  }
  if (step) {
    if (std::find(p.steps.begin(), p.steps.end(), *step) == p.steps.end()) p.steps.push_back(*step);
  } else {
    ++p.samples_outside_steps;
  }
}

void TelemetryRecorder::add_pass(double t_s, std::optional<int> step, const std::vector<GpuPass>& passes) {
  ++passes_;
  for (const auto& pass : passes) {
    model::TelemetryGpu* g = gpu(pass.nvml_index);
    if (g == nullptr) continue;
    model::TelemetrySample sample = pass.sample;
    sample.t_s = t_s;
    sample.span_s = 0;
    sample.step = step;
    g->samples.push_back(std::move(sample));
    // Bounded while recording: a run of hours keeps at most ~2x the bound in memory.
    if (telemetry_.max_samples_per_gpu > 0 && g->samples.size() >= 2 * telemetry_.max_samples_per_gpu) {
      model::downsample(g->samples, telemetry_.max_samples_per_gpu);
    }
    merge_unavailable(*g, pass.unavailable);
    if (pass.processes) {
      for (const auto& seen : *pass.processes) record_process(seen, pass.nvml_index, t_s, step);
    }
  }
}

void TelemetryRecorder::begin_step(const std::string& name, double t_s, const std::vector<StepCounters>& counters) {
  if (running_step()) end_step(t_s, {});  // a step without its end: closed where the next begins
  model::TelemetryStep step;
  step.name = name;
  step.start_s = t_s;
  for (const auto& c : counters) {
    step.gpus.push_back({c.nvml_index, c.counters, std::nullopt});
    if (model::TelemetryGpu* g = gpu(c.nvml_index)) merge_unavailable(*g, c.unavailable);
  }
  telemetry_.steps.push_back(std::move(step));
}

void TelemetryRecorder::end_step(double t_s, const std::vector<StepCounters>& counters) {
  const auto index = running_step();
  if (!index) return;
  model::TelemetryStep& step = telemetry_.steps[static_cast<std::size_t>(*index)];
  step.end_s = t_s;
  for (const auto& c : counters) {
    for (auto& g : step.gpus) {
      if (g.nvml_index == c.nvml_index) g.after = c.counters;
    }
    if (model::TelemetryGpu* g = gpu(c.nvml_index)) merge_unavailable(*g, c.unavailable);
  }
}

void TelemetryRecorder::add_own_pid(std::int64_t pid, const std::string& owner) {
  if (std::find(telemetry_.own_pids.begin(), telemetry_.own_pids.end(), pid) == telemetry_.own_pids.end()) {
    telemetry_.own_pids.push_back(pid);
  }
  if (const auto step = running_step()) telemetry_.steps[static_cast<std::size_t>(*step)].pids.push_back(pid);
  for (auto& p : telemetry_.processes) {
    if (p.pid == pid) p.owner = owner;
  }
}

void TelemetryRecorder::add_xid(double t_s, int nvml_index, int xid) {
  telemetry_.xid_events.push_back({t_s, nvml_index, xid, running_step()});
}

void TelemetryRecorder::note_unavailable(int nvml_index, const std::string& quantity, const std::string& reason) {
  if (model::TelemetryGpu* g = gpu(nvml_index)) g->unavailable.emplace(quantity, reason);
}

void TelemetryRecorder::note_unavailable(const std::string& xid_reason) { telemetry_.xid_unavailable = xid_reason; }

void TelemetryRecorder::add_pass_cost(double cpu_us, double wall_us) {
  pass_cpu_us_.push_back(cpu_us);
  pass_wall_us_.push_back(wall_us);
}

void TelemetryRecorder::add_counter_cost(double wall_us) { counter_wall_us_.push_back(wall_us); }

model::Telemetry TelemetryRecorder::snapshot(double duration_s, double cpu_seconds) const {
  model::Telemetry out = telemetry_;
  out.duration_s = duration_s;
  out.passes = passes_;
  for (auto& g : out.gpus) model::downsample(g.samples, out.max_samples_per_gpu);
  out.cost.cpu_seconds = cpu_seconds;
  summarize_into(pass_cpu_us_, out.cost.pass_cpu_us_median, &out.cost.pass_cpu_us_max);
  summarize_into(pass_wall_us_, out.cost.pass_wall_us_median, &out.cost.pass_wall_us_max);
  summarize_into(counter_wall_us_, out.cost.counters_wall_us_median, nullptr);
  return out;
}

}  // namespace linkscope::discover
