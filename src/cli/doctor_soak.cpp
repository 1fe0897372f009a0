// `linkscope doctor --soak DURATION`: the live doctor's steps repeated until the duration has passed, each cycle
// summarised (its bandwidths under the Prometheus export's names, its link facts) so the rules can judge drift, steps
// and flaps over the cycles; the report directory is rewritten, complete, after every cycle.
#include <atomic>
#include <chrono>
#include <cstdio>

#include <fmt/format.h>

#include "cli/doctor_collect.hpp"
#include "cli/stop_signals.hpp"
#include "core/terminal_text.hpp"
#include "diagnose/diagnose.hpp"
#include "report/soak_cycle.hpp"

namespace linkscope::cli {

namespace {

using Clock = std::chrono::steady_clock;

std::atomic<int> g_soak_signal{0};
extern "C" void soak_signal(int signal_number) { g_soak_signal.store(signal_number); }

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

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
    model::SoakCycle cycle = report::summarize_soak_cycle(run, index, start, seconds_since(begin) - start);
    soak.cycles.push_back(std::move(cycle));
    const bool stopped = run.config.stopped.has_value() || g_soak_signal.load() != 0;
    const double elapsed = seconds_since(begin);
    if (stopped) {
      soak.ended = run.config.stopped ? *run.config.stopped + fmt::format(" (soak cycle {})", index + 1)
                                      : fmt::format("interrupted ({}) after soak cycle {}",
                                                    stop_signal_name(g_soak_signal.load()), index + 1);
    } else {
      soak.ended = report::soak_duration_reached(soak, elapsed);
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
