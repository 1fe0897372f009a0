// `linkscope doctor --soak DURATION`: the live doctor's steps repeated until the duration has passed, each cycle
// summarised (its bandwidths under the Prometheus export's names, its link facts) so the rules can judge drift, steps
// and flaps over the cycles; the report directory is rewritten, complete, after every cycle.
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "cli/doctor_collect.hpp"
#include "cli/stop_signals.hpp"
#include "core/terminal_text.hpp"
#include "diagnose/diagnose.hpp"
#include "diagnose/expectations.hpp"
#include "report/prometheus_exposition.hpp"
#include "report/prometheus_report.hpp"

namespace linkscope::cli {

namespace {

using Clock = std::chrono::steady_clock;

std::atomic<int> g_soak_signal{0};
extern "C" void soak_signal(int signal_number) { g_soak_signal.store(signal_number); }

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// The cycle's bandwidths where bandwidth is measured (sizes from bandwidth_compare_min_bytes up), by series name.
std::map<std::string, double> cycle_metrics(const model::Run& run) {
  const auto min_bytes = diagnose::threshold(diagnose::Threshold::kBandwidthCompareMinBytes);
  std::map<std::string, double> metrics;
  for (const auto& family : report::prometheus_families(run)) {
    const std::string suffix = "_bytes_per_second";
    if (family.name.size() < suffix.size() ||
        family.name.compare(family.name.size() - suffix.size(), suffix.size(), suffix) != 0) {
      continue;
    }
    for (const auto& [values, value] : family.samples) {
      std::string key = family.name + "{";
      bool small = false;
      for (std::size_t i = 0; i < family.labels.size() && i < values.size(); ++i) {
        if (family.labels[i] == "host" || family.labels[i] == "nccl_version") continue;  // the same every cycle
        if (family.labels[i] == "size" && std::strtod(values[i].c_str(), nullptr) < min_bytes) small = true;
        key += fmt::format("{}{}=\"{}\"", key.back() == '{' ? "" : ",", family.labels[i],
                           report::escape_label_value(values[i]));
      }
      if (!small) metrics[key + "}"] = value;
    }
  }
  return metrics;
}

// The link facts of each GPU that must not change while the machine runs.
std::map<std::string, std::string> cycle_states(const model::System& system) {
  std::map<std::string, std::string> states;
  for (const auto& gpu : system.gpus) {
    const std::string label = gpu.label();
    if (gpu.pcie.sysfs_current_width) {
      states[label + " PCIe width"] = std::to_string(*gpu.pcie.sysfs_current_width);
    } else if (gpu.pcie.current_width) {
      states[label + " PCIe width"] = std::to_string(*gpu.pcie.current_width);
    }
    if (gpu.nvlinks.has_value()) states[label + " active NVLinks"] = std::to_string(gpu.active_nvlinks());
  }
  return states;
}

}  // namespace

model::Run run_soak(const DoctorOptions& options, double seconds,
                    const std::function<void(const model::Run&)>& on_cycle) {
  // A signal between two cycles ends the soak after the cycle (collect_live_run handles one during its steps).
  const ScopedStopSignals signals(soak_signal);
  g_soak_signal.store(0);
  model::Soak soak;
  soak.requested_s = seconds;
  const auto begin = Clock::now();
  model::Run run;
  for (int index = 0;; ++index) {
    const double start = seconds_since(begin);
    print_stderr_line(fmt::format("linkscope doctor: soak cycle {} at {:.0f} s of {:.0f} s", index + 1, start, seconds));
    run = collect_live_run(options);
    diagnose::diagnose_into(run, false);
    model::SoakCycle cycle;
    cycle.index = index;
    cycle.start_s = start;
    cycle.seconds = seconds_since(begin) - start;
    cycle.metrics = cycle_metrics(run);
    cycle.states = cycle_states(run.system);
    for (const auto& finding : run.findings) {
      if (finding.severity >= model::Severity::kWarning) cycle.findings.push_back(finding.id);
    }
    soak.cycles.push_back(std::move(cycle));
    const bool stopped = run.config.stopped.has_value() || g_soak_signal.load() != 0;
    const double elapsed = seconds_since(begin);
    if (stopped) {
      soak.ended = run.config.stopped ? *run.config.stopped + fmt::format(" (soak cycle {})", index + 1)
                                      : fmt::format("interrupted ({}) after soak cycle {}",
                                                    g_soak_signal.load() == SIGTERM ? "SIGTERM" : "SIGINT", index + 1);
    } else if (elapsed + soak.cycles.back().seconds > seconds) {
      soak.ended = fmt::format("duration reached: {} cycles in {:.0f} s (the next would end after {:.0f} s)",
                               index + 1, elapsed, seconds);
    }
    run.measurements.soak = soak;
    diagnose::diagnose_into(run, false);  // again: the soak's rules judge every cycle so far
    on_cycle(run);
    if (!soak.ended.empty()) break;
  }
  if (g_soak_signal.load() != 0 && !run.config.stopped) {
    run.config.stopped = soak.ended;  // the doctor's exit code says it was interrupted
  }
  return run;
}

}  // namespace linkscope::cli
