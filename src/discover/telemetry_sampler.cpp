#include "discover/telemetry_sampler.hpp"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>

#include "core/stamp.hpp"
#include "discover/nvml_monitor.hpp"
#include "discover/pcie_aer.hpp"
#include "discover/process_ownership.hpp"
#include "discover/sysfs_root.hpp"
#include "discover/telemetry_recorder.hpp"

namespace linkscope::discover {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

double thread_cpu_seconds(clockid_t clock) {
  timespec ts{};
  if (clock_gettime(clock, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double this_thread_cpu_seconds() { return thread_cpu_seconds(CLOCK_THREAD_CPUTIME_ID); }

}  // namespace

struct TelemetrySampler::Impl {
  TelemetryOptions options;
  SysfsRoot sysfs;
  std::unique_ptr<NvmlMonitor> monitor;
  std::vector<TelemetryGpuIdentity> gpus;  // what is sampled, in order

  mutable std::mutex mutex;  // guards everything below
  std::condition_variable wake;
  bool stop = false;
  bool started = false;
  Clock::time_point start_time;
  std::optional<TelemetryRecorder> recorder;
  ProcessOwnership ownership;
  std::map<std::int64_t, ProcessSighting> known_pids;  // what was found out about each pid seen (no memory)
  std::string running_step_name;
  std::string unavailable;

  std::thread thread;
  std::atomic<bool> thread_clock_valid{false};
  clockid_t thread_clock{};
  double finished_thread_cpu = 0;

  explicit Impl(TelemetryOptions o)
      : options(std::move(o)),
        sysfs(options.sysfs_root),
        ownership(SysfsRoot(options.sysfs_root), options.doctor_pid != 0 ? options.doctor_pid : ::getpid()) {}

  double now_s() const { return seconds_between(start_time, Clock::now()); }

  double sampler_cpu_seconds() const {
    if (thread_clock_valid.load()) return thread_cpu_seconds(thread_clock);
    return finished_thread_cpu;
  }

  // What is known about `pid`, classified once (names and /proc are read only for a pid not seen before).
  ProcessSighting& sighting(std::int64_t pid) {
    auto it = known_pids.find(pid);
    if (it != known_pids.end()) return it->second;
    ProcessSighting seen;
    seen.pid = pid;
    const ProcessOwner owner = ownership.classify(pid);
    seen.owner = owner.owner;
    seen.visible = owner.visible;
    seen.name = monitor ? monitor->process_name(static_cast<unsigned>(pid)) : "";
    if (seen.name.empty()) seen.name = owner.comm;
    return known_pids.emplace(pid, std::move(seen)).first->second;
  }

  void pass() {
    const double cpu_before = this_thread_cpu_seconds();
    const auto wall_before = Clock::now();
    std::optional<int> step;
    double t_s = 0;
    {
      const std::lock_guard<std::mutex> lock(mutex);
      step = recorder->running_step();
      t_s = now_s();
    }
    std::vector<GpuReading> readings;
    readings.reserve(gpus.size());
    for (const auto& gpu : gpus) readings.push_back(monitor->read(gpu.nvml_index));
    const std::lock_guard<std::mutex> lock(mutex);
    std::vector<GpuPass> passes(gpus.size());
    for (std::size_t i = 0; i < gpus.size(); ++i) {
      GpuPass& pass = passes[i];
      pass.nvml_index = static_cast<int>(gpus[i].nvml_index);
      pass.sample = std::move(readings[i].sample);
      pass.unavailable = std::move(readings[i].unavailable);
      if (!readings[i].processes) continue;
      pass.processes.emplace();
      for (const auto& record : *readings[i].processes) {
        ProcessSighting seen = sighting(record.pid);
        if (record.used_memory_bytes.has()) seen.used_memory_bytes = static_cast<std::int64_t>(*record.used_memory_bytes);
        pass.processes->push_back(std::move(seen));
      }
    }
    recorder->add_pass(t_s, step, passes);
    recorder->add_pass_cost((this_thread_cpu_seconds() - cpu_before) * 1e6,
                            seconds_between(wall_before, Clock::now()) * 1e6);
  }

  std::vector<StepCounters> read_counters() {
    std::vector<StepCounters> out;
    if (!monitor) return out;
    const auto wall_before = Clock::now();
    for (const auto& gpu : gpus) {
      CounterReading reading = monitor->read_counters(gpu.nvml_index);
      StepCounters c;
      c.nvml_index = static_cast<int>(gpu.nvml_index);
      c.counters = std::move(reading.counters);
      c.unavailable = std::move(reading.unavailable);
      if (!gpu.pci_bdf.empty()) read_aer_counters(sysfs, gpu.pci_bdf, c.counters, c.unavailable);
      out.push_back(std::move(c));
    }
    const std::lock_guard<std::mutex> lock(mutex);
    recorder->add_counter_cost(seconds_between(wall_before, Clock::now()) * 1e6);
    return out;
  }

  // A step boundary: its time, then every GPU's counters (read outside the lock: they take a while).
  std::pair<double, std::vector<StepCounters>> boundary() {
    double t_s = 0;
    {
      const std::lock_guard<std::mutex> lock(mutex);
      t_s = now_s();
    }
    return {t_s, read_counters()};
  }

  // Between passes: Xid events as they come (NVML's wait doubles as the sleep), else a plain wait.
  void wait_for_next_pass(Clock::time_point deadline) {
    while (true) {
      {
        std::unique_lock<std::mutex> lock(mutex);
        if (stop || Clock::now() >= deadline) return;
        if (!monitor->watching_xid()) {
          wake.wait_until(lock, deadline, [&] { return stop; });
          return;
        }
      }
      const auto before = Clock::now();
      const auto remaining = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - before).count();
      const auto event = monitor->wait_xid(static_cast<unsigned>(std::max<long long>(1, remaining)));
      std::unique_lock<std::mutex> lock(mutex);
      if (event) {
        recorder->add_xid(now_s(), static_cast<int>(event->nvml_index), event->xid);
        continue;
      }
      // NVML may return early without an event (an interrupt, an error): sleep the rest instead of spinning.
      if (Clock::now() < deadline) wake.wait_until(lock, deadline, [&] { return stop; });
      return;
    }
  }

  void run() {
    pthread_getcpuclockid(pthread_self(), &thread_clock);
    thread_clock_valid.store(true);
    const auto interval = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.interval_s));
    auto next = Clock::now() + interval;
    while (true) {
      wait_for_next_pass(next);
      {
        const std::lock_guard<std::mutex> lock(mutex);
        if (stop) break;
      }
      pass();
      next += interval;
      if (next < Clock::now()) next = Clock::now() + interval;  // a slow pass: no burst of catch-up passes
    }
    const std::lock_guard<std::mutex> lock(mutex);
    finished_thread_cpu = this_thread_cpu_seconds();
    thread_clock_valid.store(false);
  }

  // The GPUs sampled: those asked for (all when none was) that NVML opened; none without NVML.
  std::vector<model::TelemetryGpu> identities() {
    if (!monitor) gpus.clear();
    if (gpus.empty() && monitor) {
      for (const auto& g : monitor->gpus()) gpus.push_back({g.nvml_index, std::nullopt, g.pci_bdf, g.uuid});
    }
    if (monitor) {
      gpus.erase(std::remove_if(gpus.begin(), gpus.end(),
                                [&](const TelemetryGpuIdentity& id) {
                                  const auto& opened = monitor->gpus();
                                  return std::none_of(opened.begin(), opened.end(),
                                                      [&](const NvmlMonitor::Gpu& g) { return g.nvml_index == id.nvml_index; });
                                }),
                 gpus.end());
    }
    std::vector<model::TelemetryGpu> out;
    for (const auto& id : gpus) {
      model::TelemetryGpu g;
      g.nvml_index = static_cast<int>(id.nvml_index);
      g.cuda_ordinal = id.cuda_ordinal;
      g.pci_bdf = id.pci_bdf;
      g.uuid = id.uuid;
      out.push_back(std::move(g));
    }
    return out;
  }

  model::Telemetry telemetry() const {
    model::Telemetry t = recorder->snapshot(now_s(), sampler_cpu_seconds());
    t.unavailable = unavailable;
    return t;
  }
};

TelemetrySampler::TelemetrySampler(TelemetryOptions options) : impl_(std::make_unique<Impl>(std::move(options))) {}

TelemetrySampler::~TelemetrySampler() {
  if (impl_->thread.joinable()) finish();
}

void TelemetrySampler::start() {
  Impl& s = *impl_;
  if (s.started) return;
  s.started = true;
  s.start_time = Clock::now();
  s.gpus = s.options.gpus;
  std::vector<unsigned> indices;
  for (const auto& g : s.gpus) indices.push_back(g.nvml_index);
  std::string reason;
  s.monitor = NvmlMonitor::open(s.options.nvml_library, indices, reason);
  if (!s.monitor) s.unavailable = "NVML could not be opened for sampling: " + reason;
  s.recorder.emplace(s.identities(), s.options.interval_s, s.options.max_samples_per_gpu, utc_timestamp(),
                     s.ownership.doctor_pid());
  if (!s.monitor) return;
  for (const auto& error : s.monitor->errors()) s.unavailable += (s.unavailable.empty() ? "" : "; ") + error;
  std::map<unsigned, std::string> per_gpu;
  const std::string xid = s.monitor->watch_xid(per_gpu);
  s.recorder->note_unavailable(xid);
  for (const auto& [index, why] : per_gpu) s.recorder->note_unavailable(static_cast<int>(index), "xid_events", why);
  s.pass();
  if (s.options.interval_s > 0) s.thread = std::thread([&s] { s.run(); });
}

bool TelemetrySampler::sampling() const { return impl_->thread.joinable(); }

void TelemetrySampler::wait_until(double seconds) const {
  const Impl& s = *impl_;
  if (!sampling()) return;
  const auto deadline = s.start_time + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
  std::this_thread::sleep_until(deadline);
}

void TelemetrySampler::begin_step(const std::string& name) {
  Impl& s = *impl_;
  if (!s.recorder) return;
  const auto [t_s, counters] = s.boundary();
  const std::lock_guard<std::mutex> lock(s.mutex);
  s.recorder->begin_step(name, t_s, counters);
  s.running_step_name = name;
}

void TelemetrySampler::end_step() {
  Impl& s = *impl_;
  if (!s.recorder) return;
  const auto [t_s, counters] = s.boundary();
  const std::lock_guard<std::mutex> lock(s.mutex);
  s.recorder->end_step(t_s, counters);
  s.running_step_name.clear();
}

void TelemetrySampler::add_own_pid(std::int64_t pid) {
  Impl& s = *impl_;
  const std::lock_guard<std::mutex> lock(s.mutex);
  s.ownership.add_child(pid, s.running_step_name);
  const std::string owner = s.ownership.classify(pid).owner;
  if (auto it = s.known_pids.find(pid); it != s.known_pids.end()) it->second.owner = owner;
  if (s.recorder) s.recorder->add_own_pid(pid, owner);
}

model::Telemetry TelemetrySampler::snapshot() const {
  const Impl& s = *impl_;
  const std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.recorder) return {};
  return s.telemetry();
}

model::Telemetry TelemetrySampler::finish() {
  Impl& s = *impl_;
  {
    const std::lock_guard<std::mutex> lock(s.mutex);
    s.stop = true;
  }
  s.wake.notify_all();
  if (s.thread.joinable()) s.thread.join();
  const std::lock_guard<std::mutex> lock(s.mutex);
  if (!s.recorder) return {};
  return s.telemetry();
}

void TelemetrySampler::sample_once() {
  Impl& s = *impl_;
  if (s.monitor && s.recorder) s.pass();
}

}  // namespace linkscope::discover
