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

platform::PinnedHostBuffer make_host_chase_chain(int reader, plan::ChaseOrder order, std::uint64_t footprint_bytes,
                                                 std::uint32_t seed) {
  platform::PinnedHostBuffer chain(footprint_bytes);
  std::fill_n(chain.as<unsigned char>(), footprint_bytes, 0);
  const auto base = reinterpret_cast<std::uint64_t>(chain.device_view(reader));
  const auto links = build_chase_links(base, footprint_bytes, order, seed);
  auto* words = chain.as<std::uint64_t>();
  constexpr std::uint64_t kWordsPerNode = plan::kChaseNodeBytes / sizeof(std::uint64_t);
  for (std::size_t node = 0; node < links.size(); ++node) words[node * kWordsPerNode] = links[node];
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
  // Samples visit the reader's SMs in turn (a lap of SMs before the precision rule may stop), so the summary is
  // the distribution over issuing SMs: the median is typical, min/max show the placement spread, and the mean is
  // nvbandwidth's device_to_device_latency_sm (which averages one chase per SM).
  int sm_count = 1;
  LINKSCOPE_CUDA_CHECK(cudaDeviceGetAttribute(&sm_count, cudaDevAttrMultiProcessorCount, reader));
  SamplingPolicy per_sm = policy;
  per_sm.min_samples = std::max<std::size_t>(policy.min_samples, static_cast<std::size_t>(sm_count));
  per_sm.max_samples = std::max(per_sm.max_samples, per_sm.min_samples);
  AdaptiveSampler sampler(per_sm);
  unsigned next_sm = 0;
  while (!sampler.done()) {
    const auto began = std::chrono::steady_clock::now();
    gate.reset();
    gate.hold(reader, stream.get());
    start.record(stream.get());
    launch_pointer_chase(cursor_word, kChaseStepsPerSample, spec.load, stream.get(), static_cast<unsigned>(sm_count),
                         next_sm);
    next_sm = (next_sm + 1) % static_cast<unsigned>(sm_count);
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
