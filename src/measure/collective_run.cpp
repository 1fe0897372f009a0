#include "measure/collective_run.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "core/error.hpp"
#include "measure/collective_benchmark.hpp"
#include "measure/collective_devices.hpp"
#include "measure/collective_watchdog.hpp"
#include "measure/devapi_session.hpp"
#include "measure/nccl_communicators.hpp"
#include "plan/collective_run_plan.hpp"
#include "platform/cuda_device_info.hpp"
#include "runtime/nccl_debug_capture.hpp"
#include "runtime/nccl_log.hpp"

namespace linkscope::measure {

static_assert(sizeof(ncclUniqueId) == kNcclIdBytes, "kNcclIdBytes must be the size of NCCL's unique id");

namespace {

// The GPUs' properties, when the plan needs them: for their memory, or for a type that needs sm_90.
std::vector<platform::CudaDeviceInfo> device_infos(const CollectiveRequest& request) {
  const auto& types = request.plan.types;
  if (!request.fit_sizes_to_memory && std::none_of(types.begin(), types.end(), coll::type_needs_sm90)) return {};
  std::vector<platform::CudaDeviceInfo> infos;
  for (int device : request.devices) infos.push_back(platform::cuda_device_info(device));
  return infos;
}

// The plan as these GPUs run it: the types they support, the series, and (when asked) the sizes that fit the
// smallest GPU of the whole group.
CollectiveSetup settle(const CollectiveRequest& request, ProcessGroup& group, int communicator_processes) {
  const std::vector<platform::CudaDeviceInfo> gpus = device_infos(request);
  CollectiveSetup setup;
  setup.plan = request.plan;
  setup.nranks = communicator_processes * setup.plan.gpus_per_process;
  std::vector<coll::GpuCapability> capabilities;
  for (const auto& gpu : gpus) capabilities.push_back({gpu.id, gpu.name, gpu.major, gpu.minor});
  coll::keep_types_the_gpus_run(setup.plan, capabilities);
  setup.series = coll::series_keys(setup.plan, setup.nranks);  // refuses a root that is not a rank
  if (!request.fit_sizes_to_memory) {
    setup.buffer_bytes = coll::largest_buffer_bytes(setup.plan, setup.nranks);
    return setup;
  }
  std::vector<double> memory{1e30};
  for (const auto& gpu : gpus) memory[0] = std::min(memory[0], static_cast<double>(gpu.total_memory_bytes));
  group.allreduce(memory, ProcessGroup::Op::kMin);
  const coll::SizeFit fit = coll::fit_sizes(setup.plan, setup.nranks, static_cast<std::uint64_t>(memory[0]));
  setup.buffer_bytes = fit.buffer_bytes;
  setup.reduced_max_bytes = fit.reduced_max_bytes;
  return setup;
}

// Every process runs the same series and sizes in the same order (times are reduced over the whole job): colours of
// different sizes may plan different ones (all roots of a rooted op, sizes that fit), which would hang the job.
void require_same_points(const CollectiveSetup& setup, ProcessGroup& group) {
  const std::vector<long long> mine{static_cast<long long>(setup.series.size()),
                                    static_cast<long long>(setup.plan.sizes.size())};
  std::vector<long long> low = mine, high = mine;
  group.allreduce(low, ProcessGroup::Op::kMin);
  group.allreduce(high, ProcessGroup::Op::kMax);
  if (low != high) {
    throw UsageError(fmt::format("{}: the communicators differ in size and would run {}..{} series of {}..{} sizes; "
                                 "choose a split with equal groups, or one root (-r) and sizes that fit every GPU",
                                 setup.plan.split.source, low[0], high[0], low[1], high[1]));
  }
}

// The id this process's communicators join: given, or made by the first process of each colour and broadcast to
// all (every process takes part in every colour's broadcast; it keeps its own colour's id).
ncclUniqueId shared_id(const CollectiveRequest& request, ProcessGroup& group, const ProcessSplit& split) {
  ncclUniqueId id{};
  if (request.nccl_id) {
    if (request.nccl_id->size() != sizeof id) throw Error(ExitCode::kInternal, "an NCCL unique id of the wrong size");
    std::memcpy(&id, request.nccl_id->data(), sizeof id);
    return id;
  }
  for (int leader : coll::color_leaders(split.colors)) {
    ncclUniqueId shared{};
    if (group.rank() == leader) shared = new_nccl_unique_id();
    group.broadcast(&shared, sizeof shared, leader);
    if (leader == split.mine.leader) id = shared;
  }
  return id;
}

// -M: free device memory of this process's GPUs at nccl-tests' four moments; the most any GPU lost between them.
class MemoryWatch {
 public:
  MemoryWatch(const std::vector<int>& devices, bool enabled) : devices_(enabled ? devices : std::vector<int>{}) {
    start_ = free_now();
  }
  void after_buffers() { buffers_ = free_now(); }
  void after_registration() { registered_ = device_api_ = free_now(); }
  // -D's device communicators: nccl-tests counts their memory as NCCL's initialisation.
  void after_device_api() { device_api_ = free_now(); }
  void before_run() { run_ = free_now(); }
  std::optional<MemoryUse> use() const {
    if (devices_.empty()) return std::nullopt;
    const std::vector<std::int64_t> end = free_now();
    MemoryUse use;
    std::int64_t device_api = 0;
    for (std::size_t i = 0; i < devices_.size(); ++i) {
      use.initialization = std::max(use.initialization, start_[i] - buffers_[i]);
      use.user_allocated = std::max(use.user_allocated, buffers_[i] - registered_[i]);
      use.collective = std::max(use.collective, run_[i] - end[i]);
      device_api = std::max(device_api, registered_[i] - device_api_[i]);
    }
    use.initialization += device_api;
    return use;
  }

 private:
  std::vector<std::int64_t> free_now() const {
    std::vector<std::int64_t> free;
    for (int d : devices_) free.push_back(static_cast<std::int64_t>(platform::device_memory(d).free_bytes));
    return free;
  }
  std::vector<int> devices_;
  std::vector<std::int64_t> start_, buffers_, registered_, device_api_, run_;
};

BenchmarkOptions benchmark_options(const coll::CollPlan& plan) {
  BenchmarkOptions options;
  options.warmup_iters = plan.warmup_iters;
  options.fixed_iters = plan.fixed_iters;
  options.sampling.target_ci = plan.target_ci;
  options.sampling.max_time_s = plan.max_time_s;
  options.agg_iters = plan.agg_iters;
  options.graph_launches = plan.graph_launches;
  options.reduction = plan.reduction;
  options.verify = plan.verify;
  options.timeout_s = plan.timeout_s;
  options.clock = plan.clock;
  options.blocking = plan.blocking;
  options.per_iteration_timing = plan.per_iteration_timing;
  options.per_iteration_skip = plan.per_iteration_skip;
  options.unalign_elements = plan.unalign_elements;
  options.alltoallv = plan.alltoallv;
  return options;
}

// Every process's NCCL log read at group rank 0 (nothing elsewhere). After an abort a peer may be stuck in an MPI
// collective that never completes: then each process keeps to its own log.
std::optional<model::RuntimeRun> gathered_runtime(const CollectiveRequest& request, ProcessGroup& group, bool aborted) {
  const runtime::NcclDebugCapture& capture = *request.capture;
  const std::string mine = capture.collect();
  const std::vector<std::string> logs =
      aborted && group.blocks_without_deadline() ? std::vector<std::string>{mine} : group.gather(mine);
  if (group.rank() != 0) return std::nullopt;
  if (!capture.active()) return model::RuntimeRun::not_recorded(*request.runtime_context, capture.reason());
  std::string all;
  for (const auto& text : logs) all += text;
  model::RuntimeRun run;
  run.context = *request.runtime_context;
  run.env = request.nccl_env;
  run.info = runtime::parse_nccl_log(all);
  return run;
}

}  // namespace

std::string new_nccl_id() {
  const ncclUniqueId id = new_nccl_unique_id();
  return std::string(reinterpret_cast<const char*>(&id), sizeof id);
}

ExitCode CollectiveRun::status() const {
  bool timeout = false, error = false, wrong = false;
  for (const auto& s : series) {
    for (const auto& p : s.points) {
      timeout |= p.status == "timeout";
      error |= p.status == "error";
      wrong |= p.wrong.value_or(0) > 0;
    }
  }
  if (timeout) return ExitCode::kTimeout;
  if (error) return ExitCode::kDevice;
  if (wrong) return ExitCode::kWrongResults;
  return ExitCode::kOk;
}

CollectiveRun run_collectives(const CollectiveRequest& request, ProcessGroup& group, const CollectiveProgress& progress) {
  if (request.devices.size() != static_cast<std::size_t>(request.plan.gpus_per_process)) {
    throw Error(ExitCode::kInternal, fmt::format("a collective run of {} GPU(s) per process given {} GPU(s)",
                                                 request.plan.gpus_per_process, request.devices.size()));
  }
  if (request.runtime_context && request.capture == nullptr) {
    throw Error(ExitCode::kInternal, "a collective run asked for NCCL's log without a capture");
  }
  CollectiveRun run;
  const ProcessSplit split = split_processes(request.plan.split, group);
  run.setup = settle(request, group, split.mine.size);
  const CollectiveSetup& setup = run.setup;
  // -D's version gate before anything runs, as nccl-tests checks it while reading its flags.
  if (setup.plan.device_api) check_device_api_available();
  if (split.mine.size != group.size()) require_same_points(setup, group);
  if (progress.on_setup) progress.on_setup(setup);

  const ncclUniqueId id = shared_id(request, group, split);
  std::vector<LocalRank> local;
  for (std::size_t i = 0; i < request.devices.size(); ++i) {
    local.push_back({split.mine.rank * setup.plan.gpus_per_process + static_cast<int>(i), request.devices[i]});
  }
  {
    // Nothing else could interrupt NCCL's initialisation (a rank that never joins): end the process.
    Watchdog init_watchdog(setup.plan.timeout_s, [capture = request.capture, message = request.init_timeout_message] {
      if (capture != nullptr) capture->remove_files();
      std::fprintf(stderr, "%s\n", message.c_str());
      std::fflush(stderr);
      std::_Exit(to_int(ExitCode::kTimeout));
    });
    CommunicatorOptions comm_options;
    comm_options.null_stream = setup.plan.null_stream;
    comm_options.cta_policy = setup.plan.cta_policy;
    MemoryWatch memory(request.devices, setup.plan.memory_report);
    NcclCommunicators comms(id, setup.nranks, local, comm_options);
    init_watchdog.disarm();
    run.local_devices = local_device_records(comms);
    for (std::size_t i = 0; i < run.local_devices.size(); ++i) {
      // nccl-tests' rank lines name the job's rank and the colour, whatever the rank inside the communicator.
      run.local_devices[i].rank = group.rank() * setup.plan.gpus_per_process + static_cast<int>(i);
      run.local_devices[i].group = split.mine.color;
    }
    // -u moves both buffers' start by up to 8 x unalign bytes (the largest element), as nccl-tests pads them.
    CollectiveBenchmark bench(comms, group, setup.buffer_bytes, 8ULL * static_cast<std::uint64_t>(setup.plan.unalign_elements));
    memory.after_buffers();
    bench.register_buffers(setup.plan.local_register);
    memory.after_registration();
    if (setup.plan.device_api) {
      bench.use_device_api(*setup.plan.device_api);
      memory.after_device_api();
    }
    model::CollectiveSeries prototype;
    prototype.nranks = setup.nranks;
    prototype.launch = request.launch;
    prototype.graph = setup.plan.graph_launches > 0;
    prototype.time_reduction = setup.plan.reduction;
    prototype.env = request.nccl_env;
    prototype.devices = gather_device_records(run.local_devices, group);
    run.devices = prototype.devices;
    if (progress.on_started) progress.on_started(run.devices);

    SweepPlan sweep;
    sweep.series = setup.series;
    sweep.sizes = setup.plan.sizes;
    sweep.in_place = setup.plan.in_place;
    sweep.cycles = setup.plan.cycles;
    sweep.options = benchmark_options(setup.plan);
    sweep.size_errors = request.size_errors;
    memory.before_run();
    run.series = run_sweep(bench, sweep, prototype, progress.on_size);
    run.aborted = comms.aborted();
    if (!run.aborted) run.memory = memory.use();
  }  // communicators destroyed: NCCL has written its whole log
  if (request.runtime_context) run.runtime = gathered_runtime(request, group, run.aborted);
  return run;
}

}  // namespace linkscope::measure
