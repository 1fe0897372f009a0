#include "measure/copy_host.hpp"

#include <optional>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/size.hpp"
#include "measure/verify_pattern.hpp"
#include "platform/cuda_check.hpp"

namespace linkscope::measure {


std::vector<model::HostPoint> measure_host_copies(const std::vector<int>& gpus, std::uint64_t bytes,
                                                 std::uint32_t host_seed, bool verify,
                                                 const std::function<GpuCopyBuffers(int)>& buffers_of, LaunchGate& gate,
                                                 const SamplingSettings& settings, const ProgressCallback& progress) {
  const auto say = [&](const std::string& line) {
    if (progress) progress(line);
  };
  std::vector<model::HostPoint> points;
  for (int gpu : gpus) {
    for (const char* direction : {"h2d", "d2h"}) {
      model::HostPoint h;
      h.gpu = gpu;
      h.direction = direction;
      h.bytes = bytes;
      points.push_back(h);
    }
  }
  std::optional<platform::PinnedHostBuffer> host_src, host_dst;
  try {
    host_src.emplace(plan::buffer_bytes_for(bytes));
    host_dst.emplace(plan::buffer_bytes_for(bytes));
    platform::ScopedDevice scope(gpus.front());
    launch_fill_pattern(host_src->device_view(gpus.front()), bytes, host_seed, nullptr);
    LINKSCOPE_CUDA_CHECK(cudaDeviceSynchronize());
  } catch (const Error& e) {
    for (auto& h : points) {
      h.status = failure_status(e);
      h.reason = fmt::format("pinned host buffers of {}: {}", format_size(bytes), e.what());
    }
    return points;
  }
  for (auto& h : points) {
    const GpuCopyBuffers gpu = buffers_of(h.gpu);
    Transfer t;
    t.kind = TransferKind::kCopyEngine;
    t.initiator = h.gpu;
    t.bytes = bytes;
    t.check_device = h.gpu;
    try {
      if (h.direction == "h2d") {
        t.src = host_src->get();
        t.dst = gpu.dst;
        t.dst_device = h.gpu;
        t.seed = host_seed;
      } else {
        t.src = gpu.src;
        t.src_device = h.gpu;
        t.dst = host_dst->get();
        t.check_dst = host_dst->device_view(h.gpu);
        t.seed = gpu.src_seed;
      }
      CopySession session({t}, gate, verify);
      const PointSamples samples = sample_point(session, settings);
      const Summary bandwidth = bandwidth_summary(samples, 0, bytes);
      h.ops_per_sample = samples.ops;
      h.samples = bandwidth.count;
      h.time_us = model::stat3_of(time_us_summary(samples, 0));
      h.bandwidth_gbps = model::stat3_of(bandwidth);
      h.cv = bandwidth.cv;
      h.wrong = samples.wrong[0];
      if (h.wrong > 0) {
        h.status = model::PointStatus::kWrong;
        h.reason = wrong_reason(h.wrong);
      }
      say(fmt::format("host {} GPU {} {}: {:.1f} GB/s ({} samples)", h.direction, h.gpu, format_size(bytes),
                      bandwidth.median, bandwidth.count));
    } catch (const Error& e) {
      h.status = failure_status(e);
      h.reason = e.what();
      say(fmt::format("host {} GPU {}: {}", h.direction, h.gpu, h.reason));
    }
  }
  return points;
}

}  // namespace linkscope::measure
