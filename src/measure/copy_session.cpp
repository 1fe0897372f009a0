#include "measure/copy_session.hpp"

#include <chrono>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/size.hpp"
#include "measure/split_warp_copy.hpp"
#include "measure/verify_pattern.hpp"
#include "plan/p2p_plan.hpp"
#include "platform/cuda_check.hpp"

namespace linkscope::measure {

struct CopySession::Lane {
  explicit Lane(const Transfer& t)
      : stream(t.initiator), check_stream(t.check_device), start(t.initiator), stop(t.initiator),
        counter(t.check_device, sizeof(unsigned long long)) {}
  platform::Stream stream;
  platform::Stream check_stream;
  platform::Event start;
  platform::Event stop;
  platform::DeviceBuffer counter;
};

CopySession::CopySession(std::vector<Transfer> transfers, LaunchGate& gate, bool verify, plan::SpanSync sync)
    : transfers_(std::move(transfers)), counters_host_(sizeof(unsigned long long) * std::max<std::size_t>(transfers_.size(), 1)),
      gate_(gate), verify_(verify), sync_(sync), signals_(std::max<std::size_t>(transfers_.size(), 1)) {
  if (transfers_.empty()) throw Error(ExitCode::kInternal, "a copy session needs at least one transfer");
  for (auto& t : transfers_) {
    if (t.check_dst == nullptr) t.check_dst = t.dst;
    if (t.kind == TransferKind::kSmKernel && (t.kernel == nullptr || t.kernel->device() != t.initiator)) {
      throw Error(ExitCode::kInternal, "SM transfer without a kernel for its initiator");
    }
    if (verify_ && t.kind == TransferKind::kSmSplitWarp) {
      throw Error(ExitCode::kInternal, "a split-warp transfer is verified by its caller, not by the session");
    }
    lanes_.push_back(std::make_unique<Lane>(t));
  }
  span_start_ = std::make_unique<platform::Event>(transfers_.front().initiator);
  span_stop_ = std::make_unique<platform::Event>(transfers_.front().initiator);
}

CopySession::~CopySession() = default;

void CopySession::enqueue(const Transfer& t, cudaStream_t stream, int ops) const {
  if (t.kind == TransferKind::kSmSplitWarp) {  // always one launch per sample, as nvbandwidth's loop in the kernel
    launch_split_warp_copy(const_cast<void*>(t.src), t.dst, t.bytes, static_cast<std::uint32_t>(ops), stream);
    return;
  }
  if (t.kind == TransferKind::kSmKernel && t.repeat_in_kernel) {
    t.kernel->launch(t.src, t.dst, t.bytes, stream, static_cast<std::uint32_t>(ops));
    return;
  }
  for (int op = 0; op < ops; ++op) {
    switch (t.kind) {
      case TransferKind::kCopyEngine:
        LINKSCOPE_CUDA_CHECK(cudaMemcpyAsync(t.dst, t.src, t.bytes, cudaMemcpyDefault, stream));
        break;
      case TransferKind::kStaged:
        LINKSCOPE_CUDA_CHECK(cudaMemcpyPeerAsync(t.dst, t.dst_device, t.src, t.src_device, t.bytes, stream));
        break;
      case TransferKind::kSmKernel:
        t.kernel->launch(t.src, t.dst, t.bytes, stream);
        break;
      case TransferKind::kSmSplitWarp:
        break;  // enqueued above
    }
  }
}

// Before lane i's own start event. Lane 0 records the shared start; every other lane starts after it.
void CopySession::open_window(std::size_t i, std::uint32_t epoch) {
  const int device = transfers_[i].initiator;
  const cudaStream_t stream = lanes_[i]->stream.get();
  platform::ScopedDevice scope(device);
  if (i == 0) {
    span_start_->record(stream);
    if (sync_ == plan::SpanSync::kFlag && transfers_.size() > 1) signals_.signal(device, stream, 0, epoch);
  } else if (sync_ == plan::SpanSync::kFlag) {
    signals_.wait(device, stream, 0, 1, epoch);
  } else {
    LINKSCOPE_CUDA_CHECK(cudaStreamWaitEvent(stream, span_start_->get(), 0));
  }
}

// After lane i's own stop event. Lane 0 records the shared stop once every other lane has stopped.
void CopySession::close_window(std::size_t i, std::uint32_t epoch) {
  const int device = transfers_[i].initiator;
  const cudaStream_t stream = lanes_[i]->stream.get();
  platform::ScopedDevice scope(device);
  if (i != 0) {
    if (sync_ == plan::SpanSync::kFlag) signals_.signal(device, stream, i, epoch);
    return;
  }
  if (sync_ == plan::SpanSync::kFlag) {
    signals_.wait(device, stream, 1, transfers_.size() - 1, epoch);
  } else {
    for (std::size_t k = 1; k < transfers_.size(); ++k) {
      LINKSCOPE_CUDA_CHECK(cudaStreamWaitEvent(stream, lanes_[k]->stop.get(), 0));
    }
  }
  span_stop_->record(stream);
}

SampleTimes CopySession::run(int ops) {
  const std::size_t n = transfers_.size();
  if (verify_) {
    for (std::size_t i = 0; i < n; ++i) {
      platform::ScopedDevice scope(transfers_[i].check_device);
      launch_poison(transfers_[i].check_dst, transfers_[i].bytes, transfers_[i].seed, lanes_[i]->check_stream.get());
    }
    for (auto& lane : lanes_) lane->check_stream.synchronize();
  }

  gate_.reset();
  signals_.reset_expired();
  const std::uint32_t epoch = ++epoch_;
  for (std::size_t i = 0; i < n; ++i) gate_.hold(transfers_[i].initiator, lanes_[i]->stream.get());
  // Lane 0 first: in event mode the other lanes wait for its start event, which must be recorded before.
  for (std::size_t i = 0; i < n; ++i) {
    platform::ScopedDevice scope(transfers_[i].initiator);
    const cudaStream_t stream = lanes_[i]->stream.get();
    open_window(i, epoch);
    lanes_[i]->start.record(stream);
    enqueue(transfers_[i], stream, ops);
    lanes_[i]->stop.record(stream);
    if (i != 0) close_window(i, epoch);
  }
  close_window(0, epoch);
  gate_.release();
  for (auto& lane : lanes_) lane->stream.synchronize();
  if (gate_.expired()) {
    throw TimeoutError(fmt::format("the launch gate's watchdog fired before {} operations were enqueued; the sample "
                                   "is invalid (host too slow or blocked)", ops * static_cast<int>(n)));
  }
  if (signals_.expired()) {
    throw TimeoutError("a stream of the sample waited too long for another stream's start or stop signal; the sample "
                       "is invalid");
  }

  SampleTimes times;
  for (std::size_t i = 0; i < n; ++i) {
    times.seconds.push_back(platform::Event::elapsed_ms(lanes_[i]->start, lanes_[i]->stop) * 1e-3);
  }
  times.span_seconds = platform::Event::elapsed_ms(*span_start_, *span_stop_) * 1e-3;
  times.wrong.assign(n, 0);
  if (verify_) {
    auto* host_counts = counters_host_.as<unsigned long long>();
    for (std::size_t i = 0; i < n; ++i) {
      platform::ScopedDevice scope(transfers_[i].check_device);
      const cudaStream_t check = lanes_[i]->check_stream.get();
      auto* counter = lanes_[i]->counter.as<unsigned long long>();
      LINKSCOPE_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof *counter, check));
      launch_count_mismatches(transfers_[i].check_dst, transfers_[i].bytes, transfers_[i].seed, counter, check);
      LINKSCOPE_CUDA_CHECK(cudaMemcpyAsync(&host_counts[i], counter, sizeof *counter, cudaMemcpyDeviceToHost, check));
    }
    for (std::size_t i = 0; i < n; ++i) {
      lanes_[i]->check_stream.synchronize();
      times.wrong[i] = host_counts[i];
    }
  }
  return times;
}

void preload_sample_kernels(int device, LaunchGate& gate) {
  platform::Stream stream(device);
  platform::DeviceBuffer scratch(device, 16);
  platform::DeviceBuffer counter(device, sizeof(unsigned long long));
  gate.reset();
  gate.hold(device, stream.get());
  gate.release();
  preload_signal_kernels(device);
  platform::ScopedDevice scope(device);
  launch_poison(scratch.get(), 16, 0, stream.get());
  launch_fill_pattern(scratch.get(), 16, 0, stream.get());
  launch_count_mismatches(scratch.get(), 16, 0, counter.as<unsigned long long>(), stream.get());
  // A device-local copy too, in case the driver implements it with a kernel of its own.
  LINKSCOPE_CUDA_CHECK(cudaMemcpyAsync(counter.get(), scratch.get(), sizeof(unsigned long long), cudaMemcpyDeviceToDevice,
                                       stream.get()));
  stream.synchronize();
  gate.reset();
}

PointSamples sample_point(CopySession& session, const SamplingSettings& settings) {
  const auto& transfers = session.transfers();
  const std::size_t n = transfers.size();
  std::uint64_t bytes_all = 0;
  for (const auto& t : transfers) bytes_all += t.bytes;

  PointSamples out;
  out.op_seconds.resize(n);
  out.wrong.assign(n, 0);
  const auto count_wrong = [&](const SampleTimes& times) {
    for (std::size_t i = 0; i < n; ++i) out.wrong[i] += times.wrong[i];
  };

  const SampleTimes calibration = session.run(1);
  count_wrong(calibration);
  out.ops = settings.forced_ops > 0 ? settings.forced_ops : plan::ops_per_sample(calibration.span_seconds);
  for (int w = 0; w < settings.warmup_samples; ++w) count_wrong(session.run(out.ops));

  AdaptiveSampler sampler(settings.policy);
  while (!sampler.done()) {
    const auto began = std::chrono::steady_clock::now();
    const SampleTimes times = session.run(out.ops);
    const double cost = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    count_wrong(times);
    for (std::size_t i = 0; i < n; ++i) out.op_seconds[i].push_back(times.seconds[i] / out.ops);
    const double aggregate = gigabytes_per_second(bytes_all * static_cast<std::uint64_t>(out.ops), times.span_seconds);
    out.aggregate_gbps.push_back(aggregate);
    double sum = 0;
    for (std::size_t i = 0; i < n; ++i) {
      sum += gigabytes_per_second(transfers[i].bytes * static_cast<std::uint64_t>(out.ops), times.seconds[i]);
    }
    out.sum_gbps.push_back(sum);
    const double primary =
        n == 1 ? gigabytes_per_second(transfers[0].bytes * static_cast<std::uint64_t>(out.ops), times.seconds[0]) : aggregate;
    sampler.add(primary, cost);
  }
  out.stop_reason = sampler.stop_reason();
  out.primary = sampler.summary();
  return out;
}

Summary bandwidth_summary(const PointSamples& samples, std::size_t transfer, std::uint64_t bytes) {
  std::vector<double> gbps;
  for (double seconds : samples.op_seconds.at(transfer)) gbps.push_back(gigabytes_per_second(bytes, seconds));
  return summarize(gbps);
}

Summary time_us_summary(const PointSamples& samples, std::size_t transfer) {
  std::vector<double> us;
  for (double seconds : samples.op_seconds.at(transfer)) us.push_back(seconds * 1e6);
  return summarize(us);
}

model::PointStatus failure_status(const Error& e) {
  return e.code() == ExitCode::kTimeout ? model::PointStatus::kTimeout : model::PointStatus::kError;
}

std::string wrong_reason(std::uint64_t wrong_words) {
  return fmt::format("{} words of the destination did not match the source", wrong_words);
}

}  // namespace linkscope::measure
