#include "plan/collective_options.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include "core/text.hpp"
#include "core/error.hpp"
#include "core/exit_code.hpp"
#include "core/seconds.hpp"
#include "core/size.hpp"
#include "core/sweep.hpp"

namespace linkscope::coll {

namespace {


void require_range(int value, int low, int high, const char* flag, const char* what) {
  if (value < low || value > high) {
    throw UsageError(fmt::format("invalid {} {}: {} must be between {} and {}", flag, value, what, low, high));
  }
}

std::string op_list() {
  std::string list;
  for (CollectiveOp op : all_collective_ops()) list += (list.empty() ? "" : ", ") + std::string(op_name(op));
  return list;
}

std::string type_list() {
  std::string list;
  for (DataType t : all_data_types()) list += (list.empty() ? "" : ", ") + std::string(type_name(t));
  return list;
}

// nccl-tests' other flags: its rules, and its warnings where it turns a flag off rather than refusing it.
void plan_nccl_tests_flags(const CollOptions& o, CollPlan& plan) {
  require_range(o.blocking, 0, 3, "-z", "the blocking mode (0 off, 1 wait + barrier, 2 wait, 3 per iteration)");
  plan.blocking = static_cast<BlockingMode>(o.blocking);
  if (o.per_iter_timing != 0 && o.per_iter_timing != 1) {
    plan.notes.push_back("per-iteration timing (-I) only supports 0=off or 1=on. Disabling.");
  }
  plan.per_iteration_timing = o.per_iter_timing == 1;
  if (plan.per_iteration_timing && plan.graph_launches >= 1) {
    plan.notes.push_back("per-iteration timing (-I) is incompatible with CUDA graph mode (-G). Disabling.");
    plan.per_iteration_timing = false;
  }
  if (plan.blocking == BlockingMode::kPerIterationExcludingBarrier && plan.graph_launches >= 1) {
    plan.notes.push_back("blocking mode (-z 3) is incompatible with CUDA graph mode (-G). Disabling.");
    plan.blocking = BlockingMode::kOff;
  }
  if ((plan.blocking == BlockingMode::kWaitAndBarrier || plan.blocking == BlockingMode::kWait) &&
      plan.graph_launches >= 1) {
    // nccl-tests fails there with a CUDA error: a stream being captured into a graph cannot be waited for.
    throw UsageError(fmt::format("-z {} waits for every operation, which a stream being captured for -G cannot do",
                                 o.blocking));
  }
  const int iters = plan.fixed_iters.value_or(20);
  plan.per_iteration_skip = o.per_iter_skip;
  if (o.per_iter_skip < 0 || o.per_iter_skip >= iters) {
    plan.notes.push_back(fmt::format("per-iteration skip (-K) must be between 0 and {}. Disabling.", iters - 1));
    plan.per_iteration_skip = 0;
  }
  if (plan.per_iteration_skip != 0 && !plan.per_iteration_timing) {
    plan.notes.push_back("per-iteration skip (-K) requires per-iteration timing (-I 1). Disabling.");
    plan.per_iteration_skip = 0;
  }
  if (plan.clock == TimingClock::kEvents &&
      (plan.blocking != BlockingMode::kOff || plan.per_iteration_timing)) {
    throw UsageError("-z and -I describe nccl-tests' host-timed loop; linkscope's event statistics (coll, "
                     "--linkscope-stats) time gated batches instead: drop them or run the *_perf personality");
  }
  plan.null_stream = o.stream_null != 0;
  require_range(o.unalign, 0, 1 << 20, "-u", "the misalignment in elements");
  plan.unalign_elements = o.unalign;
  require_range(o.local_register, 0, 2, "-R", "the registration mode (0 off, 1 local, 2 symmetric)");
  plan.local_register = o.local_register;
  if (o.cta_policy >= 0) {
    require_range(o.cta_policy, 0, 2, "-x", "the CTA policy (0 default, 1 efficiency, 2 zero)");
    plan.cta_policy = o.cta_policy;
  }
  // -V only matters with -D; nccl-tests accepts it alone, with the same warning outside 1..128.
  if (o.device_impl == 0) static_cast<void>(device_cta_count(o.device_ctas, plan.notes));
  try {
    plan.device_api = plan_device_api(plan.op, o.device_impl, o.device_ctas, o.local_register, plan.types, plan.redops,
                                      plan.notes);
  } catch (const Error& e) {
    // nccl-tests' own exit code belongs to its names; linkscope coll keeps its usage code.
    if (e.code() == ExitCode::kNcclTestsRefused && !o.personality) throw UsageError(e.what());
    throw;
  }
  plan.parallel_init = o.parallel_init != 0;
  plan.timestamps = o.timestamps != 0;
  plan.memory_report = o.memory_report != 0;
  plan.report_cputime = o.report_cputime;
  plan.json_file = o.json_file;
  if (!plan.json_file.empty() && o.format != OutputFormat::kNcclTests) {
    throw UsageError("-J writes nccl-tests' JSON next to its text (--format nccl-tests); for linkscope's Run document "
                     "use --output FILE");
  }
}

}  // namespace

std::string_view format_name(OutputFormat format) {
  switch (format) {
    case OutputFormat::kText: return "text";
    case OutputFormat::kJson: return "json";
    case OutputFormat::kNcclTests: return "nccl-tests";
  }
  return "text";
}

CollPlan make_coll_plan(const CollOptions& o) {
  CollPlan plan;
  const auto op = parse_op(o.op);
  if (!op) throw UsageError(fmt::format("unknown collective '{}' (expected one of: {})", o.op, op_list()));
  plan.op = *op;

  const std::string datatype = lower(o.datatype);
  if (datatype == "all") {
    plan.types = all_data_types();
  } else {
    const auto type = parse_type(datatype);
    if (!type) throw UsageError(fmt::format("unknown data type '{}' for -d (expected one of: {}, all)", o.datatype, type_list()));
    plan.types = {*type};
  }

  const std::string redop = lower(o.redop);
  if (!op_prints_redop(plan.op)) {
    plan.redops = {RedOp::kSum};  // unused: data movement only
  } else if (redop == "all") {
    plan.redops = all_red_ops();
  } else {
    const auto parsed = parse_red_op(redop);
    if (!parsed) {
      throw UsageError(fmt::format("unknown reduction '{}' for -o (expected sum, prod, max, min, avg, mulsum or all)", o.redop));
    }
    plan.redops = {*parsed};
  }
  // sendrecv prints the reduction but ignores it (nccl-tests loops over it all the same).
  if (plan.op == CollectiveOp::kSendRecv && redop != "all") plan.redops = {plan.redops.front()};

  const std::string root = lower(o.root);
  if (root == "all" || root == "-1") {
    plan.all_roots = true;
  } else {
    char* end = nullptr;
    const long value = std::strtol(root.c_str(), &end, 10);
    constexpr long kMaxRoot = 1 << 20;
    if (root.empty() || *end != '\0' || value < 0 || value > kMaxRoot) {
      throw UsageError(fmt::format("invalid root '{}' for -r (expected a rank 0 to {}, -1 or all)", o.root, kMaxRoot));
    }
    plan.root = static_cast<int>(value);
  }

  SweepSpec spec;
  spec.min_bytes = parse_size(o.min_bytes, "minimum size (-b)");
  spec.max_bytes = parse_size(o.max_bytes, "maximum size (-e)");
  spec.step_bytes = parse_size(o.step_bytes, "step size (-i)");
  spec.step_factor = o.step_factor;
  if (!(o.step_factor >= 0)) throw UsageError(fmt::format("invalid step factor {} for -f", o.step_factor));
  plan.sizes = sweep_sizes(spec);
  plan.min_bytes = spec.min_bytes;
  plan.max_bytes = spec.max_bytes;
  plan.split = o.split;
  plan.notes.insert(plan.notes.end(), o.split.notes.begin(), o.split.notes.end());
  if (plan.op == CollectiveOp::kAlltoAllv) {
    plan.alltoallv = o.alltoallv;
    plan.notes.insert(plan.notes.end(), o.alltoallv.notes.begin(), o.alltoallv.notes.end());
  }

  require_range(o.threads, 1, 1024, "-t", "the thread count");
  require_range(o.gpus, 1, 1024, "-g", "the GPU count");
  plan.gpus_per_process = o.threads * o.gpus;
  if (o.threads > 1) {
    plan.notes.push_back(fmt::format("-t {} -g {}: one thread drives all {} GPUs of this process (same ranks as "
                                     "nccl-tests' threads)",
                                     o.threads, o.gpus, plan.gpus_per_process));
  }
  require_range(o.warmup_iters, 0, 1000000, "-w", "the warm-up count");
  if (o.iters) require_range(*o.iters, 1, 100000000, "-n", "the iteration count");
  require_range(o.agg_iters, 1, 64, "-m", "the aggregation count");
  // -N 0 repeats until a signal ends the process, as nccl-tests does: its results are the lines it printed. The
  // Run document of `linkscope coll` is written at the end, which never comes.
  if (o.cycles == 0 && !o.personality) {
    throw UsageError("-N 0 (repeat until a signal) is for the nccl-tests names (all_reduce_perf ...); linkscope coll "
                     "writes its results at the end: give a number of cycles");
  }
  require_range(o.cycles, o.personality ? 0 : 1, 1000000, "-N", "the cycle count");
  require_range(o.graph_launches, 0, 1000000, "-G", "the graph launch count");
  if (o.check < 0) throw UsageError(fmt::format("invalid -c {}: the check count must be >= 0", o.check));
  plan.verify = o.check > 0;
  if (o.check > 1) plan.notes.push_back(fmt::format("-c {}: each size and placement is checked once", o.check));
  if (o.average) {
    require_range(*o.average, 0, 3, "-a", "the rank time reduction (0 rank 0, 1 avg, 2 min, 3 max)");
    plan.reduction = static_cast<RankTimeReduction>(*o.average);
  }
  checked_seconds(o.timeout_s, "--timeout");

  plan.fixed_iters = o.iters;
  plan.warmup_iters = o.warmup_iters;
  plan.agg_iters = o.agg_iters;
  plan.graph_launches = o.graph_launches;
  plan.cycles = o.cycles;
  plan.timeout_s = o.timeout_s;
  plan.all_types = o.datatype == "all";  // spelled exactly so (the type list above ignores case)
  if (o.target_ci) {
    if (!(*o.target_ci > 0 && *o.target_ci < 1)) {
      throw UsageError(fmt::format("invalid --target-ci {}: a relative CI half-width between 0 and 1 (e.g. 0.01)",
                                   *o.target_ci));
    }
    plan.target_ci = *o.target_ci;
  }
  if (o.max_time_s) {
    plan.max_time_s = checked_seconds(*o.max_time_s, "--max-time", ZeroSeconds::kRefused);
  }
  if (o.iters && (o.target_ci || o.max_time_s)) {
    throw UsageError("-n fixes the iteration count; it cannot be combined with --target-ci or --max-time");
  }
  if (o.format == OutputFormat::kNcclTests) {
    // nccl-tests prints a fixed iteration count in its preamble and both placements in every row.
    if (o.target_ci || o.max_time_s) {
      throw UsageError("--format nccl-tests uses a fixed iteration count (-n, default 20); drop --target-ci/--max-time");
    }
    if (!plan.fixed_iters) plan.fixed_iters = 20;
    plan.in_place = true;
  } else {
    plan.in_place = o.in_place;
  }
  // The personalities time as nccl-tests does unless --linkscope-stats asks for linkscope's statistics.
  plan.clock = o.personality && !o.linkscope_stats ? TimingClock::kHostLoop : TimingClock::kEvents;
  plan_nccl_tests_flags(o, plan);
  return plan;
}

std::vector<int> roots_for(const CollPlan& plan, int nranks) {
  if (!op_is_rooted(plan.op)) return {0};
  if (plan.all_roots) {
    std::vector<int> roots;
    for (int r = 0; r < nranks; ++r) roots.push_back(r);
    return roots;
  }
  if (plan.root >= nranks) {
    throw UsageError(fmt::format("root {} (-r) is not a rank: there are {} ranks (0..{})", plan.root, nranks, nranks - 1));
  }
  return {plan.root};
}

std::uint64_t max_buffer_bytes_for_memory(std::uint64_t gpu_memory_bytes) {
  constexpr std::uint64_t kGiB = 1ULL << 30;
  const std::uint64_t reserve = std::min((gpu_memory_bytes + 16 * kGiB - 1) / (16 * kGiB) * kGiB, 4 * kGiB);
  if (gpu_memory_bytes <= reserve + kGiB) return 0;
  return (gpu_memory_bytes - reserve - kGiB) / 2;
}

}  // namespace linkscope::coll

namespace linkscope::coll {

std::vector<int> select_local_devices(int visible_devices, int gpus, int local_rank, std::optional<int> first_device) {
  int first = 0;
  if (first_device) {
    first = *first_device;
  } else if (visible_devices != gpus || local_rank == 0) {
    first = local_rank * gpus;
  }
  if (first < 0 || first + gpus > visible_devices) {
    const std::string where = first_device ? fmt::format("NCCL_TESTS_DEVICE={}", *first_device)
                                           : fmt::format("local rank {}", local_rank);
    throw UsageError(fmt::format("-g {} needs GPUs {}..{} ({}) but only {} GPU(s) are visible (check -g, the number "
                                 "of processes per node and CUDA_VISIBLE_DEVICES)",
                                 gpus, first, first + gpus - 1, where, visible_devices));
  }
  std::vector<int> devices;
  for (int i = 0; i < gpus; ++i) devices.push_back(first + i);
  return devices;
}

std::optional<int> nccl_tests_device(const Environment& env) {
  if (const auto text = env.get("NCCL_TESTS_DEVICE")) return std::atoi(text->c_str());
  return std::nullopt;
}

}  // namespace linkscope::coll
