// The telemetry sampler's cost per sampling pass and per counter reading (a step boundary), through the real dlopen
// loader: against the fake libnvidia-ml.so by default (linkscope's own bookkeeping: NVML's cost is not in it), or
// against the machine's NVML with LINKSCOPE_NVML_LIBRARY=libnvidia-ml.so.1 on a GPU machine (the real cost of the
// driver queries). The doctor samples at 10 Hz: a pass of P microseconds costs P / 100000 of one CPU core.
#include <cstdlib>
#include <string>

#include <benchmark/benchmark.h>

#include "discover/telemetry_sampler.hpp"

namespace {

using linkscope::discover::TelemetryOptions;
using linkscope::discover::TelemetrySampler;

TelemetryOptions bench_options() {
  TelemetryOptions options;
  options.interval_s = 0;  // no thread: the benchmark makes every pass
  const char* library = std::getenv("LINKSCOPE_NVML_LIBRARY");
  options.nvml_library = library != nullptr ? library : LINKSCOPE_FAKE_NVML;
  return options;  // every GPU NVML lists
}

std::size_t gpu_count(const TelemetrySampler& sampler) { return sampler.snapshot().gpus.size(); }

void BM_TelemetrySamplingPass(benchmark::State& state) {
  TelemetrySampler sampler(bench_options());
  sampler.start();
  const std::size_t gpus = gpu_count(sampler);
  if (gpus == 0) state.SkipWithError(("NVML unusable: " + sampler.snapshot().unavailable).c_str());
  for (auto _ : state) sampler.sample_once();
  state.counters["gpus"] = static_cast<double>(gpus);
  state.counters["passes_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_TelemetrySamplingPass)->Unit(benchmark::kMicrosecond);

// begin_step + end_step: two readings of every GPU's counters (NVML and sysfs AER).
void BM_TelemetryStepBoundaries(benchmark::State& state) {
  TelemetrySampler sampler(bench_options());
  sampler.start();
  const std::size_t gpus = gpu_count(sampler);
  if (gpus == 0) state.SkipWithError(("NVML unusable: " + sampler.snapshot().unavailable).c_str());
  for (auto _ : state) {
    sampler.begin_step("bench");
    sampler.end_step();
  }
  state.counters["gpus"] = static_cast<double>(gpus);
}
BENCHMARK(BM_TelemetryStepBoundaries)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
