#include "measure/latency_probe.hpp"

#include <chrono>

#include "core/error.hpp"
#include "measure/latency_chase.hpp"
#include "platform/cuda_check.hpp"

namespace linkscope::measure {

platform::DeviceBuffer make_chase_chain(int owner, std::uint32_t seed) {
  platform::DeviceBuffer chain(owner, kChaseFootprintBytes);
  const auto words = build_chase_chain(reinterpret_cast<std::uint64_t>(chain.get()), kChaseFootprintBytes, seed);
  LINKSCOPE_CUDA_CHECK(cudaMemcpy(chain.get(), words.data(), words.size() * sizeof(std::uint64_t), cudaMemcpyHostToDevice));
  return chain;
}

Summary sample_pointer_chase(int reader, const void* chain, LaunchGate& gate, const SamplingPolicy& policy) {
  platform::DeviceBuffer sink(reader, sizeof(std::uint64_t));
  platform::Stream stream(reader);
  platform::Event start(reader), stop(reader);
  platform::ScopedDevice scope(reader);
  launch_pointer_chase(chain, kChaseFootprintBytes / kChaseNodeBytes, sink.as<std::uint64_t>(), stream.get());
  stream.synchronize();
  AdaptiveSampler sampler(policy);
  while (!sampler.done()) {
    const auto began = std::chrono::steady_clock::now();
    gate.reset();
    gate.hold(reader, stream.get());
    start.record(stream.get());
    launch_pointer_chase(chain, kChaseStepsPerSample, sink.as<std::uint64_t>(), stream.get());
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
