#include "measure/latency_probe.hpp"

#include <algorithm>
#include <chrono>

#include "core/error.hpp"
#include "measure/latency_chase.hpp"
#include "platform/cuda_check.hpp"

namespace linkscope::measure {

platform::DeviceBuffer make_chase_chain(int owner, plan::ChaseOrder order, std::uint64_t footprint_bytes,
                                        std::uint32_t seed) {
  platform::DeviceBuffer chain(owner, footprint_bytes);
  const auto links = build_chase_links(reinterpret_cast<std::uint64_t>(chain.get()), footprint_bytes, order, seed);
  platform::Stream stream(owner);
  platform::ScopedDevice scope(owner);
  write_chase_chain(chain.get(), links, stream.get());
  return chain;
}

Summary sample_pointer_chase(int reader, const void* chain, const plan::ChaseSpec& spec, LaunchGate& gate,
                             const SamplingPolicy& policy) {
  platform::DeviceBuffer cursor(reader, sizeof(std::uint64_t));
  platform::Stream stream(reader);
  platform::Event start(reader), stop(reader);
  platform::ScopedDevice scope(reader);
  const auto first = reinterpret_cast<std::uint64_t>(chain);
  LINKSCOPE_CUDA_CHECK(cudaMemcpy(cursor.get(), &first, sizeof first, cudaMemcpyHostToDevice));
  auto* cursor_word = cursor.as<std::uint64_t>();
  const std::uint64_t lap = spec.footprint_bytes / plan::kChaseNodeBytes;
  launch_pointer_chase(cursor_word, std::min(lap, kChaseMaxWarmupSteps), spec.load, stream.get());
  stream.synchronize();
  AdaptiveSampler sampler(policy);
  while (!sampler.done()) {
    const auto began = std::chrono::steady_clock::now();
    gate.reset();
    gate.hold(reader, stream.get());
    start.record(stream.get());
    launch_pointer_chase(cursor_word, kChaseStepsPerSample, spec.load, stream.get());
    stop.record(stream.get());
    gate.release();
    stream.synchronize();
    if (gate.expired()) throw TimeoutError("the launch gate's watchdog fired during a pointer chase");
    const double ns = platform::Event::elapsed_ms(start, stop) * 1e6 / static_cast<double>(kChaseStepsPerSample);
    sampler.add(ns, std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
  }
  return sampler.summary();
}

Summary sample_small_copies(const Transfer& transfer, int copies, LaunchGate& gate, const SamplingSettings& settings) {
  CopySession session({transfer}, gate, false);
  SamplingSettings fixed = settings;
  fixed.forced_ops = copies;
  const PointSamples samples = sample_point(session, fixed);
  std::vector<double> ns;
  for (double seconds : samples.op_seconds[0]) ns.push_back(seconds * 1e9);
  return summarize(ns);
}

}  // namespace linkscope::measure
