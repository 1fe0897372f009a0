// telemetry_watch: the doctor's telemetry sampler as a process of its own, for the side-by-side overhead check
// (bench/device/telemetry_overhead.sh): it samples every GPU until SIGINT or SIGTERM, as the doctor's parent process
// does while a step runs in its child, then writes measurements.telemetry as JSON and its cost on stderr.
//
//   telemetry_watch [--hz N] [--output FILE] [--seconds S]
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

#include "discover/telemetry_sampler.hpp"

namespace {

std::atomic<bool> g_stop{false};
extern "C" void on_signal(int) { g_stop.store(true); }

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "telemetry_watch: %s\nusage: telemetry_watch [--hz N] [--output FILE] [--seconds S]\n", why);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  double hz = 10, seconds = 0;
  std::string output;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) usage(("missing value after " + arg).c_str());
    if (arg == "--hz") {
      hz = std::atof(argv[++i]);
    } else if (arg == "--output") {
      output = argv[++i];
    } else if (arg == "--seconds") {
      seconds = std::atof(argv[++i]);
    } else {
      usage(("unknown argument " + arg).c_str());
    }
  }
  if (!(hz > 0 && hz <= 100)) usage("--hz must be in (0, 100]");
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);

  linkscope::discover::TelemetryOptions options;
  options.interval_s = 1 / hz;
  const char* library = std::getenv("LINKSCOPE_NVML_LIBRARY");
  options.nvml_library = library != nullptr ? library : "";
  linkscope::discover::TelemetrySampler sampler(options);
  sampler.start();
  const auto start = std::chrono::steady_clock::now();
  while (!g_stop.load() && (seconds <= 0 || std::chrono::steady_clock::now() - start < std::chrono::duration<double>(seconds))) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const linkscope::model::Telemetry telemetry = sampler.finish();
  if (!output.empty()) std::ofstream(output) << linkscope::model::to_json(telemetry).dump(1) << "\n";
  const double share = telemetry.duration_s > 0 ? telemetry.cost.cpu_seconds / telemetry.duration_s : 0;
  std::fprintf(stderr,
               "telemetry_watch: %zu GPU(s), %zu passes in %.1f s at %.1f Hz; sampler CPU %.4f s (%.3f%% of one core); "
               "pass median %.0f us CPU, %.0f us wall%s%s\n",
               telemetry.gpus.size(), telemetry.passes, telemetry.duration_s, hz, telemetry.cost.cpu_seconds,
               100 * share, telemetry.cost.pass_cpu_us_median.value_or(0), telemetry.cost.pass_wall_us_median.value_or(0),
               telemetry.unavailable.empty() ? "" : "; ", telemetry.unavailable.c_str());
  return telemetry.gpus.empty() ? 3 : 0;
}
