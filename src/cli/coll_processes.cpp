#include "cli/coll_processes.hpp"

#include <cstdio>
#include <functional>

#include <fmt/format.h>

#include "core/stamp.hpp"
#include "core/error.hpp"
#include "model/run.hpp"
#include "plan/collective_run_plan.hpp"
#include "platform/cuda_device_info.hpp"

namespace linkscope::cli {

CollProcesses start_coll_processes(Environment env, const runtime::LaunchEnvironment& launch,
                                   runtime::CaptureDetail capture_detail) {
  runtime::refuse_parallel_launch_without_mpi(launch, platform::mpi_built_in());
  CollProcesses processes;
  processes.env = std::move(env);
  processes.launch = launch;
  processes.capture = std::make_unique<runtime::NcclDebugCapture>(processes.env, capture_detail);
  processes.capture->apply();
  if (launch.parallel()) {
    processes.capture->remove_on_sigterm();  // another rank's MPI_Abort ends this one with SIGTERM
    processes.mpi = std::make_unique<platform::MpiSession>(nullptr, nullptr);
    processes.group = measure::make_mpi_process_group(*processes.mpi);
  } else {
    processes.group = std::make_unique<measure::SingleProcessGroup>();
  }
  return processes;
}

std::vector<int> coll_gpus(const coll::CollPlan& plan, const CollProcesses& processes) {
  const char* no_gpu = nullptr;
  const int visible = platform::cuda_device_count_or_zero(&no_gpu);
  if (visible == 0) {
    throw DeviceError(fmt::format("no usable CUDA GPU ({}); is the NVIDIA driver installed and a GPU visible "
                                  "(CUDA_VISIBLE_DEVICES)?",
                                  no_gpu != nullptr ? no_gpu : "none found"));
  }
  return coll::select_local_devices(visible, plan.gpus_per_process, processes.local_rank(),
                                    coll::nccl_tests_device(processes.env));
}

int coll_dry_run(const coll::CollPlan& plan, const std::vector<std::string>& argv, CollProcesses& processes) {
  measure::ProcessGroup& group = *processes.group;
  std::string options_text;
  for (std::size_t i = 1; i < argv.size(); ++i) options_text += argv[i] + " ";
  std::vector<long long> options_hash{static_cast<long long>(std::hash<std::string>{}(options_text) & 0x7fffffffffff)};
  std::vector<long long> first = options_hash;
  group.broadcast(first.data(), sizeof(long long), 0);
  const char* no_gpu = nullptr;
  const int visible = platform::cuda_device_count_or_zero(&no_gpu);
  const int local_rank = processes.local_rank();
  const measure::ProcessSplit split = measure::split_processes(plan.split, group);
  std::string devices;
  try {
    const auto selected = coll::select_local_devices(visible, plan.gpus_per_process, local_rank,
                                                     coll::nccl_tests_device(processes.env));
    for (std::size_t i = 0; i < selected.size(); ++i) {
      devices += fmt::format("{}GPU {} -> rank {}", i == 0 ? "" : ", ", selected[i],
                             split.mine.rank * plan.gpus_per_process + static_cast<int>(i));
    }
  } catch (const UsageError& e) {
    devices = fmt::format("cannot run here: {}", e.what());
  }
  const std::string line = fmt::format(
      "  process {} on {}: local rank {} of {}, {} visible GPU(s){}; {}{}{}", group.rank(), host_name(), local_rank,
      processes.mpi ? processes.mpi->local_size() : 1, visible,
      visible == 0 && no_gpu != nullptr ? fmt::format(" ({})", no_gpu) : std::string(),
      plan.split.kind == coll::SplitRule::Kind::kNone
          ? std::string()
          : fmt::format("group {}: process {} of {} in its communicator; ", split.mine.color, split.mine.rank,
                        split.mine.size),
      devices,
      first[0] != options_hash[0] ? "; WARNING: its options differ from process 0's" : "");
  const auto lines = group.gather(line);
  if (group.rank() != 0) return 0;
  const runtime::LaunchEnvironment& launch = processes.launch;
  std::printf("linkscope coll dry run: %s, %zu type(s), %zu reduction(s), %zu size(s) %llu..%llu B, %s\n",
              std::string(coll::op_name(plan.op)).c_str(), plan.types.size(), plan.redops.size(), plan.sizes.size(),
              static_cast<unsigned long long>(plan.sizes.front()), static_cast<unsigned long long>(plan.sizes.back()),
              plan.in_place ? "out of place and in place" : "out of place");
  std::printf("processes: %d (%s), %d GPU(s) each, %d rank(s)\n", group.size(),
              launch.parallel() ? fmt::format("MPI, {}", launch.launcher).c_str() : "single process",
              plan.gpus_per_process, group.size() * plan.gpus_per_process);
  if (plan.split.kind != coll::SplitRule::Kind::kNone) {
    std::printf("split: %s, %zu communicator(s)\n", plan.split.source.c_str(), coll::color_leaders(split.colors).size());
  }
  for (const auto& l : lines) std::printf("%s\n", l.c_str());
  std::printf("timing: %s\n", plan.clock == coll::TimingClock::kHostLoop
                                   ? fmt::format("nccl-tests' host timer around -n iterations (blocking -z {}{})",
                                                 static_cast<int>(plan.blocking),
                                                 plan.per_iteration_timing ? ", -I per-iteration events" : "")
                                         .c_str()
                                   : "linkscope's gated CUDA-event statistics");
  if (plan.device_api) std::printf("operation: %s\n", coll::device_call_name(plan.op, *plan.device_api).c_str());
  for (const auto& note : plan.notes) std::printf("note: %s\n", note.c_str());
  for (const auto& note : coll::rounding_notes(plan, split.mine.size * plan.gpus_per_process)) {
    std::printf("note: %s\n", note.c_str());
  }
  std::printf("runtime layer: %s\n", processes.capture->active() ? "recorded (NCCL_DEBUG=INFO into a private file)"
                                                                  : processes.capture->reason().c_str());
  return 0;
}

}  // namespace linkscope::cli
