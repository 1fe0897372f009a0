#include "measure/collective_benchmark.hpp"

#include <algorithm>
#include <cmath>

#include "core/statistics.hpp"
#include "measure/collective_point_run.hpp"

namespace linkscope::measure {

using point_run::PointRun;
using point_run::fail;
using point_run::CapturedGraphs;

CollectiveBenchmark::CollectiveBenchmark(NcclCommunicators& comms, ProcessGroup& group, std::uint64_t buffer_bytes,
                                         std::uint64_t pad_bytes)
    : comms_(comms), group_(group), buffer_bytes_(buffer_bytes), impl_(std::make_unique<Impl>()) {
  impl_->registrations = std::make_unique<NcclRegistrations>(0);
  const std::uint64_t allocated = buffer_bytes + pad_bytes;
  for (std::size_t i = 0; i < comms.local_count(); ++i) {
    const int device = comms.local(i).device;
    impl_->send.emplace_back(device, allocated);
    impl_->recv.emplace_back(device, allocated);
    platform::ScopedDevice scope(device);
    // Defined contents (zeros are valid in every type) for the rotated regions the check does not fill.
    LINKSCOPE_CUDA_CHECK(cudaMemsetAsync(impl_->send.back().get(), 0, allocated, comms.stream(i)));
    LINKSCOPE_CUDA_CHECK(cudaMemsetAsync(impl_->recv.back().get(), 0, allocated, comms.stream(i)));
    impl_->wrong.push_back(std::make_unique<WrongCounter>(device));
    std::vector<std::unique_ptr<platform::Event>> events;
    // One event per iteration boundary, plus one for a leading (discarded) iteration.
    for (int e = 0; e <= kMaxBatchIterations + 1; ++e) events.push_back(std::make_unique<platform::Event>(device));
    impl_->events.push_back(std::move(events));
  }
  for (std::size_t i = 0; i < comms.local_count(); ++i) LINKSCOPE_CUDA_CHECK(cudaStreamSynchronize(comms.stream(i)));
}

void CollectiveBenchmark::register_buffers(int mode) {
  impl_->registrations = std::make_unique<NcclRegistrations>(mode);
  if (mode == 0) return;
  // Registration is collective over each communicator's ranks: one group for this process's ranks.
  const auto& nccl = platform::nccl_library();
  std::vector<std::pair<void* const*, void* const*>> slots;
  nccl_check(nccl.GroupStart(), "ncclGroupStart");
  try {
    for (std::size_t i = 0; i < comms_.local_count(); ++i) {
      slots.emplace_back(impl_->registrations->add(comms_.comm(i), impl_->send[i].get(), impl_->send[i].size()),
                         impl_->registrations->add(comms_.comm(i), impl_->recv[i].get(), impl_->recv[i].size()));
    }
  } catch (...) {
    static_cast<void>(nccl.GroupEnd());
    throw;
  }
  nccl_check(nccl.GroupEnd(), "ncclGroupEnd (buffer registration)");
  // Mode 2's handles are the symmetric windows -D's kernels reach the buffers through; NCCL has written them now.
  for (const auto& [send, recv] : slots) {
    impl_->send_windows.push_back(static_cast<ncclWindow_t>(*send));
    impl_->recv_windows.push_back(static_cast<ncclWindow_t>(*recv));
  }
}

void CollectiveBenchmark::use_device_api(const coll::DeviceApiPlan& plan) {
  if (impl_->send_windows.size() != comms_.local_count()) {
    throw Error(ExitCode::kInternal, "-D before the buffers were registered as symmetric windows (-R 2)");
  }
  impl_->device_api = std::make_unique<DevapiSession>(comms_, plan, impl_->send_windows, impl_->recv_windows);
  impl_->device_plan = plan;
}

std::string CollectiveBenchmark::call_name(coll::CollectiveOp op) const {
  return impl_->device_plan ? coll::device_call_name(op, *impl_->device_plan) : nccl_call_name(op);
}

CollectiveBenchmark::~CollectiveBenchmark() {
  // After an abort a kernel may still be stuck on a GPU; freeing its memory would block on it. The process is
  // about to end, so the buffers are deliberately left to the driver.
  if (comms_.aborted()) {
    impl_->registrations->forget();
    if (impl_->device_api) impl_->device_api->forget();
    static_cast<void>(impl_.release());
  }
}

bool CollectiveBenchmark::warm_up_series(const SeriesKey& key, std::uint64_t min_bytes, std::uint64_t max_bytes,
                                         const BenchmarkOptions& options) {
  if (comms_.aborted()) return false;
  std::optional<PointRun> last;
  for (std::uint64_t bytes = std::max<std::uint64_t>(min_bytes, 1); bytes <= max_bytes; bytes *= 2) {
    const coll::CollectiveCounts counts =
        coll::collective_counts(key.op, bytes, coll::type_size(key.type), comms_.nranks(), &options.alltoallv);
    if (counts.size_bytes() > buffer_bytes_) break;
    last.emplace(comms_, group_, *impl_, buffer_bytes_, key, counts, false, options);
    for (int w = 0; w < options.warmup_iters; ++w) last->enqueue_operation(static_cast<std::uint64_t>(w));
    if (bytes > max_bytes / 2) break;  // the next doubling would overflow or pass the largest size
  }
  return !last || last->wait("warm-up");
}

bool CollectiveBenchmark::aborted() const { return comms_.aborted(); }

model::CollectivePoint CollectiveBenchmark::measure(const SeriesKey& key, std::uint64_t requested_bytes, bool in_place,
                                                   const BenchmarkOptions& options) {
  const coll::CollectiveCounts counts =
      coll::collective_counts(key.op, requested_bytes, coll::type_size(key.type), comms_.nranks(), &options.alltoallv);
  model::CollectivePoint point;
  point.requested_bytes = requested_bytes;
  point.bytes = counts.size_bytes();
  point.count = counts.param_count;
  point.in_place = in_place;
  if (comms_.aborted()) {
    fail(point, "error", "not measured: the NCCL communicators were aborted earlier in this run");
    return point;
  }
  if (counts.size_bytes() > buffer_bytes_) {
    fail(point, "error", fmt::format("{} bytes do not fit the {}-byte buffers", counts.size_bytes(), buffer_bytes_));
    return point;
  }
  PointRun run(comms_, group_, *impl_, buffer_bytes_, key, counts, in_place, options);
  auto failed = [&] {
    fail(point, run.failure_status(), run.failure());
    return point;
  };
  if (options.clock == coll::TimingClock::kHostLoop) return point_run::measure_host_timed(run, std::move(point), group_, comms_.nranks(), key, counts, options);
  if (!run.warm_up()) return failed();
  bool ok = true;
  point.wrong = run.verify(ok);
  if (!ok) return failed();

  const bool graph = options.graph_launches > 0;
  const int max_batch = std::max(1, kMaxBatchIterations / std::max(1, options.agg_iters));
  // Probe one gated iteration to size the batches (its time is reduced over all processes, so every process
  // picks the same batch size).
  const auto probe = run.run_batch(1, 0, nullptr, 1);
  if (!probe) return failed();
  const double estimate_us = std::max(probe->iteration_us.front(), 0.5);
  int batch = std::clamp(static_cast<int>(options.batch_target_s * 1e6 / estimate_us), 1, max_batch);
  // Between processes the gates open a few microseconds apart; an extra leading iteration absorbs that.
  const int lead = group_.size() > 1 && estimate_us < 1000 && !graph ? 1 : 0;

  CapturedGraphs graphs;
  int ops_per_launch = 1;
  if (graph) {
    ops_per_launch = options.fixed_iters ? *options.fixed_iters : batch;
    run.capture(ops_per_launch, graphs);
    // A graph of many operations is one sample; batch launches so each gated batch stays near the target.
    batch = std::clamp(static_cast<int>(options.batch_target_s * 1e6 / (estimate_us * ops_per_launch)), 1, max_batch);
    // A fixed count of launches (-G) is that many samples, one per launch, however short the operation.
    if (options.fixed_iters) batch = 1;
  }

  std::vector<double> fixed_values;
  std::size_t timed_iterations = 0;
  int fixed_done = 0;  // timed iterations so far (a fixed count counts iterations; each batch is one sample)
  AdaptiveSampler sampler(options.sampling);
  const int fixed_total = !options.fixed_iters ? 0 : (graph ? options.graph_launches : *options.fixed_iters);
  double enqueue_s = 0;
  std::size_t enqueued_ops = 0;
  int expired = 0;
  while (true) {
    int iterations = batch;
    if (options.fixed_iters) {
      const int remaining = fixed_total - fixed_done;
      if (remaining <= 0) break;
      iterations = std::min(batch, remaining);
    } else if (sampler.done()) {
      break;
    }
    const int with_lead = std::min(iterations + lead, max_batch + lead);
    const auto result = run.run_batch(with_lead, lead, graph ? &graphs : nullptr, ops_per_launch);
    if (!result) return failed();
    if (result->gate_expired) {
      // The gate gave up before the batch was enqueued: its times include host enqueue. Retry smaller.
      if (++expired > 3) {
        fail(point, "error", "the launch gate expired repeatedly while enqueueing (NCCL's work queue full?)");
        return point;
      }
      batch = std::max(1, batch / 4);
      continue;
    }
    enqueue_s += result->enqueue_s;
    enqueued_ops += static_cast<std::size_t>(with_lead) * ops_per_launch * options.agg_iters;
    const double cost = result->cost_s / static_cast<double>(result->iteration_us.size());
    if (options.fixed_iters) fixed_done += iterations;
    timed_iterations += static_cast<std::size_t>(iterations) * ops_per_launch;
    for (double us : result->iteration_us) {
      if (options.fixed_iters) {
        fixed_values.push_back(us);
      } else {
        sampler.add(us, cost);
      }
    }
  }

  const std::vector<double>& values = options.fixed_iters ? fixed_values : sampler.values();
  if (values.empty()) {
    fail(point, "error", "no timed iterations");
    return point;
  }
  const Summary s = summarize(values);
  model::TimeSummary t;
  t.median_us = s.median;
  t.min_us = s.min;
  t.max_us = s.max;
  t.mean_us = s.mean;
  t.cv = s.cv;
  t.ci_relative = s.ci_is_95 ? s.median_ci_relative_halfwidth() : 0.0;
  point.time = t;
  point.samples = values.size();
  point.iterations = timed_iterations;
  point.stop_reason = options.fixed_iters ? "fixed-count" : to_string(sampler.stop_reason());
  if (enqueued_ops > 0) point.cputime_us = enqueue_s * 1e6 / static_cast<double>(enqueued_ops);
  const coll::Bandwidth bw = coll::collective_bandwidth(key.op, counts.param_count, counts.size_bytes(),
                                                        counts.element_size, s.median * 1e-6, comms_.nranks());
  point.algbw_gbps = bw.algbw_gbps;
  point.busbw_gbps = bw.busbw_gbps;
  if (point.wrong && *point.wrong > 0) {
    point.status = "wrong";
    point.reason = fmt::format("{} wrong element(s) after one verified operation", *point.wrong);
  }
  return point;
}

}  // namespace linkscope::measure
