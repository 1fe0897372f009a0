// `linkscope coll`: NCCL collective benchmark with nccl-tests' flags, per-size statistics from device events,
// verification of every size, and the runtime layer (what NCCL chose). Also what runs behind the
// all_reduce_perf, all_gather_perf, ... links (plan/nccl_tests_personality.hpp).
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "cli/command.hpp"
#include "core/environment.hpp"
#include "core/error.hpp"
#include "core/run.hpp"
#include "core/size.hpp"
#include "measure/collective_benchmark.hpp"
#include "measure/collective_devices.hpp"
#include "measure/collective_process_group.hpp"
#include "measure/collective_sweep.hpp"
#include "measure/collective_watchdog.hpp"
#include "measure/nccl_communicators.hpp"
#include "plan/collective_options.hpp"
#include "plan/nccl_tests_personality.hpp"
#include "platform/cuda_check.hpp"
#include "platform/cuda_resources.hpp"
#include "platform/mpi_session.hpp"
#include "platform/nccl_library.hpp"
#include "report/collective_text.hpp"
#include "report/nccl_tests_text.hpp"
#include "runtime/launch_environment.hpp"
#include "runtime/nccl_debug_capture.hpp"
#include "runtime/nccl_log.hpp"

namespace linkscope::cli {

namespace {

using coll::OutputFormat;

struct CollState {
  coll::CollOptions options;
  bool as_nccl_tests = false;
  std::string output_file;
  std::string format = "text";
  std::vector<std::string> argv;
  bool dry_run = false;
  CLI::App* app = nullptr;
};

bool given(const CollState& s, const char* name) { return s.app->count(name) > 0; }

// nccl-tests' defaults for every flag the user did not give (the all_reduce_perf ... personality).
void apply_nccl_tests_defaults(CollState& s) {
  auto& o = s.options;
  if (!given(s, "-b")) o.min_bytes = "32M";
  if (!given(s, "-e")) o.max_bytes = "32M";
  if (!given(s, "-i")) o.step_bytes = "1M";
  if (!given(s, "-f")) o.step_factor = 1;
  if (!given(s, "-n")) o.iters = 20;
  if (!given(s, "-a")) o.average = 1;
  if (!given(s, "--format")) s.format = "nccl-tests";
}

OutputFormat parse_format(const std::string& text) {
  if (text == "json") return OutputFormat::kJson;
  if (text == "nccl-tests") return OutputFormat::kNcclTests;
  return OutputFormat::kText;
}

std::string sampling_text(const coll::CollPlan& plan, const measure::BenchmarkOptions& options) {
  if (plan.fixed_iters) {
    return options.graph_launches > 0
               ? fmt::format("{} CUDA graph launches of {} operations each", options.graph_launches, *plan.fixed_iters)
               : fmt::format("{} timed iterations per size", *plan.fixed_iters);
  }
  return fmt::format("adaptive: until the median's 95% CI is within {:g}% or {:g} s per size{}", plan.target_ci * 100,
                     plan.max_time_s, options.graph_launches > 0 ? " (one sample per CUDA graph launch)" : "");
}

// The NCCL variables that shape a run, for the record.
std::map<std::string, std::string> nccl_variables(const Environment& env) {
  std::map<std::string, std::string> kept;
  for (const auto& [name, value] : env.relevant()) {
    if (name.rfind("NCCL_", 0) == 0) kept.emplace(name, value);
  }
  return kept;
}

// Prints results as they arrive (rank 0 only): linkscope's table, nccl-tests' rows or progress lines.
class Printer {
 public:
  Printer(OutputFormat format, bool enabled, bool quiet, bool cputime, std::string sampling)
      : format_(format), enabled_(enabled), quiet_(quiet), cputime_(cputime), sampling_(std::move(sampling)) {}

  void on_size(const model::CollectiveSeries& series, const std::vector<model::CollectivePoint>& points) {
    if (!enabled_) return;
    for (const auto& p : points) {
      if (p.wrong && *p.wrong > 0) ++out_of_bounds_;
    }
    if (format_ == OutputFormat::kText) {
      if (series.points.size() == points.size()) {  // the first size of a series
        if (series_printed_++ > 0) std::fputs("#\n", stdout);
        std::fputs(report::render_collective_header(series, sampling_).c_str(), stdout);
      }
      for (const auto& p : points) std::fputs(report::render_collective_row(p).c_str(), stdout);
    } else if (format_ == OutputFormat::kNcclTests) {
      print_nccl_tests_row(series, points);
    } else if (!quiet_) {
      for (const auto& p : points) {
        std::fprintf(stderr, "linkscope: %s %s %llu B %s: %s\n", std::string(coll::op_name(series.op)).c_str(),
                     std::string(coll::type_name(series.dtype)).c_str(), static_cast<unsigned long long>(p.bytes),
                     p.in_place ? "in place" : "out of place",
                     p.busbw_gbps ? fmt::format("busbw {:.2f} GB/s", *p.busbw_gbps).c_str() : p.status.c_str());
      }
    }
    std::fflush(stdout);
  }

  int out_of_bounds() const { return out_of_bounds_; }
  double average_busbw() const { return cells_ == 0 ? 0.0 : busbw_sum_ / cells_; }

 private:
  report::NcclTestsCell cell(const model::CollectiveSeries& s, const model::CollectivePoint& p) {
    report::NcclTestsCell c;
    // nccl-tests reports the mean time of its iterations (bandwidth from it), or with -C the host time spent
    // enqueueing one operation.
    const double time_us = p.time->mean_us;
    c.time_us = cputime_ ? p.cputime_us.value_or(0) : time_us;
    const auto bw = coll::collective_bandwidth(s.op, p.count, coll::type_size(s.dtype), time_us * 1e-6, s.nranks);
    c.algbw_gbps = bw.algbw_gbps;
    c.busbw_gbps = bw.busbw_gbps;
    if (p.wrong) c.wrong = static_cast<double>(*p.wrong);
    busbw_sum_ += bw.busbw_gbps;
    ++cells_;
    return c;
  }

  void print_nccl_tests_row(const model::CollectiveSeries& s, const std::vector<model::CollectivePoint>& points) {
    const model::CollectivePoint* out = nullptr;
    const model::CollectivePoint* in = nullptr;
    for (const auto& p : points) (p.in_place ? in : out) = &p;
    for (const auto* p : {out, in}) {
      if (p != nullptr && !p->time) {
        std::printf("# %llu B %s: %s: %s\n", static_cast<unsigned long long>(p->bytes),
                    p->in_place ? "in-place" : "out-of-place", p->status.c_str(), p->reason.value_or("").c_str());
        return;
      }
    }
    if (out == nullptr || in == nullptr) return;
    report::NcclTestsRow row;
    row.size_bytes = out->bytes;
    row.count = out->count;
    row.type = std::string(coll::type_name(s.dtype));
    row.redop = coll::op_prints_redop(s.op) ? std::string(coll::red_op_name(s.redop)) : "none";
    row.root = coll::op_is_rooted(s.op) ? s.root : -1;
    row.out_of_place = cell(s, *out);
    row.in_place = cell(s, *in);
    std::fputs(report::render_nccl_tests_row(row).c_str(), stdout);
  }

  OutputFormat format_;
  bool enabled_;
  bool quiet_;
  bool cputime_;
  std::string sampling_;
  int series_printed_ = 0;
  int out_of_bounds_ = 0;
  double busbw_sum_ = 0;
  int cells_ = 0;
};

struct Setup {
  coll::CollPlan plan;
  OutputFormat format = OutputFormat::kText;
  Environment env;
  std::unique_ptr<runtime::NcclDebugCapture> capture;
  std::unique_ptr<platform::MpiSession> mpi;
  std::unique_ptr<measure::ProcessGroup> group;
};

// Work out every size's buffer need; drop sizes that do not fit the smallest GPU (nccl-tests' rule).
std::uint64_t fit_sizes(coll::CollPlan& plan, int nranks, const std::vector<int>& devices, measure::ProcessGroup& group,
                        std::optional<std::uint64_t>& reduced_max) {
  std::vector<double> memory{1e30};
  for (int device : devices) {
    cudaDeviceProp prop{};
    LINKSCOPE_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    memory[0] = std::min(memory[0], static_cast<double>(prop.totalGlobalMem));
  }
  group.allreduce(memory, measure::ProcessGroup::Op::kMin);
  const std::uint64_t cap = coll::max_buffer_bytes_for_memory(static_cast<std::uint64_t>(memory[0]));
  auto need = [&](std::uint64_t bytes) {
    std::uint64_t most = 0;
    for (auto type : plan.types) {
      most = std::max(most, coll::collective_counts(plan.op, bytes, coll::type_size(type), nranks).size_bytes());
    }
    return most;
  };
  std::vector<std::uint64_t> kept;
  for (std::uint64_t bytes : plan.sizes) {
    if (need(bytes) <= cap) kept.push_back(bytes);
  }
  if (kept.empty()) {
    throw UsageError(fmt::format("no size fits: the smallest GPU has {} bytes, so buffers are limited to {} bytes",
                                 static_cast<std::uint64_t>(memory[0]), cap));
  }
  if (kept.size() < plan.sizes.size()) {
    reduced_max = cap;
    plan.notes.push_back(fmt::format("sizes above {} bytes do not fit the GPUs' memory and are skipped", cap));
  }
  plan.sizes = kept;
  std::uint64_t buffer = 1;
  for (std::uint64_t bytes : plan.sizes) buffer = std::max(buffer, need(bytes));
  return buffer;
}

std::vector<measure::SeriesKey> series_keys(const coll::CollPlan& plan, int nranks) {
  std::vector<measure::SeriesKey> keys;
  for (auto type : plan.types) {
    for (auto redop : plan.redops) {
      for (int root : coll::roots_for(plan, nranks)) keys.push_back({plan.op, type, redop, root});
    }
  }
  return keys;
}

// fp8 needs sm_90: explicit -d f8e4m3 on an older GPU is an error; -d all drops fp8 (as nccl-tests does).
void check_types_against_devices(coll::CollPlan& plan, const std::vector<int>& devices, bool all_types) {
  for (int device : devices) {
    cudaDeviceProp prop{};
    LINKSCOPE_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    if (prop.major >= 9) continue;
    std::vector<coll::DataType> kept;
    for (auto type : plan.types) {
      if (!coll::type_needs_sm90(type)) {
        kept.push_back(type);
      } else if (!all_types) {
        throw UsageError(fmt::format("-d {} needs compute capability 9.0; GPU {} ({}) is {}.{}", coll::type_name(type),
                                     device, prop.name, prop.major, prop.minor));
      }
    }
    plan.types = kept;
  }
}

int exit_code_for(const std::vector<model::CollectiveSeries>& results, bool bandwidth_failed) {
  bool timeout = false, error = false, wrong = false;
  for (const auto& s : results) {
    for (const auto& p : s.points) {
      timeout |= p.status == "timeout";
      error |= p.status == "error";
      wrong |= p.wrong.value_or(0) > 0;
    }
  }
  if (timeout) return to_int(ExitCode::kTimeout);
  if (error) return to_int(ExitCode::kDevice);
  if (wrong) return to_int(ExitCode::kWrongResults);
  if (bandwidth_failed) return to_int(ExitCode::kThreshold);
  return 0;
}

report::NcclTestsPreamble nccl_tests_preamble(const CollState& state, const coll::CollPlan& plan,
                                              const measure::BenchmarkOptions& options,
                                              const std::vector<model::DeviceRecord>& devices,
                                              std::optional<std::uint64_t> reduced_max) {
  report::NcclTestsPreamble p;
  p.nccl_headers_code = NCCL_VERSION_CODE;
  p.nccl_library_code = platform::nccl_library().version_code;
  p.program = std::string(coll::op_name(plan.op)) + "_perf";
  p.gpus_per_thread = plan.gpus_per_process;
  p.min_bytes = parse_size(state.options.min_bytes);
  p.max_bytes = parse_size(state.options.max_bytes);
  p.step_is_factor = state.options.step_factor > 1;
  p.step = p.step_is_factor ? static_cast<std::uint64_t>(state.options.step_factor) : parse_size(state.options.step_bytes);
  p.warmup_iters = options.warmup_iters;
  p.iters = plan.fixed_iters.value_or(0);
  p.agg_iters = options.agg_iters;
  p.validation = state.options.check;
  p.graph_launches = options.graph_launches;
  for (const auto& d : devices) {
    p.devices.push_back({d.rank, 0, d.pid, d.host, d.cuda_device, d.pci_domain, d.pci_bus, d.pci_device, d.name});
  }
  p.reduced_max_bytes = reduced_max;
  return p;
}

// Sizes that nccl-tests' rounding changes (not a multiple of the element size, or of ranks x 16 bytes).
std::vector<std::string> rounding_notes(const coll::CollPlan& plan, int nranks) {
  std::vector<std::string> notes;
  for (std::uint64_t bytes : plan.sizes) {
    for (auto type : plan.types) {
      const auto counts = coll::collective_counts(plan.op, bytes, coll::type_size(type), nranks);
      if (auto note = coll::rounding_note(plan.op, bytes, counts, nranks)) notes.push_back(std::move(*note));
    }
  }
  return notes;
}

// --dry-run: what would run, on which processes and GPUs, without touching NCCL. Under MPI it exercises the
// bootstrap (ranks, node-local ranks, gather, broadcast) and checks that every process got the same options.
int dry_run(CollState& state, Setup& setup, const runtime::LaunchEnvironment& launch) {
  measure::ProcessGroup& group = *setup.group;
  const coll::CollPlan& plan = setup.plan;
  std::string options_text;
  for (std::size_t i = 1; i < state.argv.size(); ++i) options_text += state.argv[i] + " ";
  std::vector<long long> options_hash{static_cast<long long>(std::hash<std::string>{}(options_text) & 0x7fffffffffff)};
  std::vector<long long> first = options_hash;
  group.broadcast(first.data(), sizeof(long long), 0);
  const char* no_gpu = nullptr;
  const int visible = platform::cuda_device_count_or_zero(&no_gpu);
  const int local_rank = setup.mpi ? setup.mpi->local_rank() : 0;
  std::string devices;
  try {
    std::optional<int> first_device;
    if (const auto text = setup.env.get("NCCL_TESTS_DEVICE")) first_device = std::atoi(text->c_str());
    const auto selected = coll::select_local_devices(visible, plan.gpus_per_process, local_rank, first_device);
    for (std::size_t i = 0; i < selected.size(); ++i) {
      devices += fmt::format("{}GPU {} -> rank {}", i == 0 ? "" : ", ", selected[i],
                             group.rank() * plan.gpus_per_process + static_cast<int>(i));
    }
  } catch (const UsageError& e) {
    devices = fmt::format("cannot run here: {}", e.what());
  }
  const std::string line = fmt::format(
      "  process {} on {}: local rank {} of {}, {} visible GPU(s){}; {}{}", group.rank(), host_name(), local_rank,
      setup.mpi ? setup.mpi->local_size() : 1, visible,
      visible == 0 && no_gpu != nullptr ? fmt::format(" ({})", no_gpu) : std::string(), devices,
      first[0] != options_hash[0] ? "; WARNING: its options differ from process 0's" : "");
  const auto lines = group.gather(line);
  if (group.rank() != 0) return 0;
  std::printf("linkscope coll dry run: %s, %zu type(s), %zu reduction(s), %zu size(s) %llu..%llu B, %s\n",
              std::string(coll::op_name(plan.op)).c_str(), plan.types.size(), plan.redops.size(), plan.sizes.size(),
              static_cast<unsigned long long>(plan.sizes.front()), static_cast<unsigned long long>(plan.sizes.back()),
              plan.in_place ? "out of place and in place" : "out of place");
  std::printf("processes: %d (%s), %d GPU(s) each, %d rank(s)\n", group.size(),
              launch.parallel() ? fmt::format("MPI, {}", launch.launcher).c_str() : "single process",
              plan.gpus_per_process, group.size() * plan.gpus_per_process);
  for (const auto& l : lines) std::printf("%s\n", l.c_str());
  for (const auto& note : plan.notes) std::printf("note: %s\n", note.c_str());
  for (const auto& note : rounding_notes(plan, group.size() * plan.gpus_per_process)) std::printf("note: %s\n", note.c_str());
  std::printf("runtime layer: %s\n", setup.capture->active() ? "recorded (NCCL_DEBUG=INFO into a private file)"
                                                              : setup.capture->reason().c_str());
  return 0;
}

int run_coll_processes(CollState& state, Setup& setup, const runtime::LaunchEnvironment& launch,
                       std::chrono::steady_clock::time_point wall_start);

int run_coll(CollState& state) {
  const auto wall_start = std::chrono::steady_clock::now();
  if (state.as_nccl_tests) apply_nccl_tests_defaults(state);
  state.options.format = parse_format(state.format);
  Setup setup;
  setup.format = state.options.format;
  setup.env = Environment::from_process();
  const auto launch = runtime::detect_launch(setup.env);
  // linkscope's own default drives every visible GPU from one process; nccl-tests' names and MPI ranks
  // keep nccl-tests' one GPU per process.
  if (!given(state, "-g") && !state.as_nccl_tests && !launch.parallel()) {
    state.options.gpus = std::max(1, platform::cuda_device_count_or_zero());
  }
  setup.plan = coll::make_coll_plan(state.options);

  // Before anything touches NCCL: the launcher check, the debug-log capture, MPI.
  runtime::refuse_parallel_launch_without_mpi(launch, platform::mpi_built_in());
  setup.capture = std::make_unique<runtime::NcclDebugCapture>(setup.env);
  setup.capture->apply();
  if (launch.parallel()) {
    setup.mpi = std::make_unique<platform::MpiSession>(nullptr, nullptr);
    setup.group = measure::make_mpi_process_group(*setup.mpi);
  } else {
    setup.group = std::make_unique<measure::SingleProcessGroup>();
  }
  try {
    if (state.dry_run) return dry_run(state, setup, launch);
    return run_coll_processes(state, setup, launch, wall_start);
  } catch (const Error& e) {
    if (!setup.mpi) throw;
    // Under MPI one failing process would leave the others waiting in a collective: end the whole job.
    std::fprintf(stderr, "linkscope: error (rank %d on %s): %s\n", setup.mpi->rank(), setup.mpi->host().c_str(), e.what());
    setup.capture->remove_files();
    setup.mpi->abort_job(to_int(e.code()));
  }
}

int run_coll_processes(CollState& state, Setup& setup, const runtime::LaunchEnvironment& launch,
                       std::chrono::steady_clock::time_point wall_start) {
  coll::CollPlan& plan = setup.plan;
  measure::ProcessGroup& group = *setup.group;
  const bool printer = group.rank() == 0;

  // NCCL first: a missing library is reported the same way with or without a GPU.
  const auto& nccl = platform::nccl_library();
  const char* no_gpu = nullptr;
  const int visible = platform::cuda_device_count_or_zero(&no_gpu);
  if (visible == 0) {
    throw DeviceError(fmt::format("no usable CUDA GPU ({}); is the NVIDIA driver installed and a GPU visible "
                                  "(CUDA_VISIBLE_DEVICES)?",
                                  no_gpu != nullptr ? no_gpu : "none found"));
  }

  std::optional<int> first_device;
  if (const auto text = setup.env.get("NCCL_TESTS_DEVICE")) first_device = std::atoi(text->c_str());
  const std::vector<int> devices = coll::select_local_devices(visible, plan.gpus_per_process,
                                                              setup.mpi ? setup.mpi->local_rank() : 0, first_device);
  check_types_against_devices(plan, devices, state.options.datatype == "all");
  const int nranks = group.size() * plan.gpus_per_process;
  std::vector<measure::LocalRank> local;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    local.push_back({group.rank() * plan.gpus_per_process + static_cast<int>(i), devices[i]});
  }
  const auto keys = series_keys(plan, nranks);
  std::optional<std::uint64_t> reduced_max;
  const std::uint64_t buffer_bytes = fit_sizes(plan, nranks, devices, group, reduced_max);
  if (printer) {
    for (const auto& note : plan.notes) std::fprintf(stderr, "linkscope: note: %s\n", note.c_str());
    if (!setup.capture->active()) std::fprintf(stderr, "linkscope: note: %s\n", setup.capture->reason().c_str());
    if (setup.format != OutputFormat::kNcclTests) {
      for (const auto& note : rounding_notes(plan, nranks)) std::fprintf(stderr, "linkscope: note: %s\n", note.c_str());
    }
  }

  ncclUniqueId id{};
  if (group.rank() == 0) id = measure::new_nccl_unique_id();
  group.broadcast(&id, sizeof id, 0);

  measure::BenchmarkOptions options;
  options.warmup_iters = state.options.warmup_iters;
  options.fixed_iters = plan.fixed_iters;
  options.sampling.target_ci = plan.target_ci;
  options.sampling.max_time_s = plan.max_time_s;
  options.agg_iters = state.options.agg_iters;
  options.graph_launches = state.options.graph_launches;
  options.reduction = plan.reduction;
  options.verify = plan.verify;
  options.timeout_s = state.options.timeout_s;

  std::vector<model::CollectiveSeries> results;
  std::string error_text;
  bool mpi_failed = false;
  {
    measure::Watchdog init_watchdog(options.timeout_s, [timeout = options.timeout_s, capture = setup.capture.get()] {
      capture->remove_files();
      std::fprintf(stderr,
                   "linkscope: error: NCCL initialisation did not finish within %g s (--timeout): a rank is missing or "
                   "the bootstrap network is blocked (NCCL_SOCKET_IFNAME)\n",
                   timeout);
      std::_Exit(to_int(ExitCode::kTimeout));
    });
    measure::NcclCommunicators comms(id, nranks, local, measure::CommunicatorOptions{});
    init_watchdog.disarm();
    measure::CollectiveBenchmark bench(comms, group, buffer_bytes);
    model::CollectiveSeries prototype;
    prototype.nranks = nranks;
    prototype.launch = setup.mpi ? "mpi" : "single-process";
    prototype.graph = options.graph_launches > 0;
    prototype.time_reduction = plan.reduction;
    prototype.env = nccl_variables(setup.env);
    prototype.devices = measure::gather_device_records(comms, group);

    const std::string sampling = sampling_text(plan, options);
    Printer out(setup.format, printer, state.options.quiet, state.options.report_cputime, sampling);
    if (printer && setup.format == OutputFormat::kNcclTests) {
      std::fputs(report::render_nccl_tests_preamble(
                     nccl_tests_preamble(state, plan, options, prototype.devices, reduced_max))
                     .c_str(),
                 stdout);
      std::fputs(report::render_nccl_tests_header(state.options.report_cputime).c_str(), stdout);
    }
    measure::SweepPlan sweep;
    sweep.series = keys;
    sweep.sizes = plan.sizes;
    sweep.in_place = plan.in_place;
    sweep.cycles = state.options.cycles;
    sweep.options = options;
    sweep.continue_after_errors = !setup.mpi;
    results = measure::run_sweep(bench, sweep, prototype,
                                 [&](const model::CollectiveSeries& s, const std::vector<model::CollectivePoint>& points) {
                                   out.on_size(s, points);
                                 });
    if (comms.aborted() && setup.mpi) {
      // Another process may still wait in a collective that can no longer complete: no more MPI calls; the
      // job ends with MPI_Abort once this process reported (below).
      setup.mpi->abandon();
      mpi_failed = true;
    }

    if (printer && setup.format == OutputFormat::kNcclTests) {
      report::NcclTestsFooter footer;
      footer.program = std::string(coll::op_name(plan.op)) + "_perf";
      footer.out_of_bounds = out.out_of_bounds();
      footer.average_busbw_gbps = out.average_busbw();
      if (const auto min_bw = setup.env.get("NCCL_TESTS_MIN_BW")) footer.minimum_busbw = std::atof(min_bw->c_str());
      for (const auto& s : results) {
        for (const auto& p : s.points) {
          if ((p.status == "timeout" || p.status == "error") && error_text.empty()) error_text = p.reason.value_or("");
        }
      }
      if (!error_text.empty()) footer.error = error_text;
      std::fputs(report::render_nccl_tests_footer(footer).c_str(), stdout);
      if (report::nccl_tests_bandwidth_failed(footer)) error_text = "average bus bandwidth below NCCL_TESTS_MIN_BW";
    }
  }  // communicators destroyed: NCCL has written its whole log

  // The runtime layer: every process's NCCL log, parsed at rank 0.
  const std::vector<std::string> logs =
      mpi_failed ? std::vector<std::string>{setup.capture->collect()} : group.gather(setup.capture->collect());
  const std::string context = fmt::format("coll {}", coll::op_name(plan.op));
  nlohmann::json runtime_section = {{"nccl_version", nccl.version_string()}, {"runs", nlohmann::json::array()}};
  runtime::NcclRuntimeInfo info;
  if (setup.capture->active()) {
    std::string all;
    for (const auto& text : logs) all += text;
    info = runtime::parse_nccl_log(all);
    runtime_section["runs"].push_back(runtime::runtime_run_json(info, context, nccl_variables(setup.env)));
  } else {
    runtime_section["runs"].push_back(
        {{"context", context}, {"status", "not recorded"}, {"reason", setup.capture->reason()}});
  }
  if (!printer) {
    if (mpi_failed) {
      std::fprintf(stderr, "linkscope: error (rank %d on %s): timed out; ending the MPI job\n", setup.mpi->rank(),
                   setup.mpi->host().c_str());
      setup.capture->remove_files();
      setup.mpi->abort_job(to_int(ExitCode::kTimeout));
    }
    return exit_code_for(results, false);
  }

  RunDocument run = make_run("coll", state.argv);
  run.environment = {{"variables", setup.env.relevant()},
                     {"nccl_library", nccl.path},
                     {"nccl_version", nccl.version_string()},
                     {"nccl_headers", platform::nccl_version_string(NCCL_VERSION_CODE)},
                     {"launch", launch.parallel() ? launch.launcher : "single process"}};
  run.runtime = runtime_section;
  nlohmann::json collectives = nlohmann::json::array();
  for (const auto& s : results) {
    collectives.push_back(coll::to_json(s));
    for (const auto& p : s.points) {
      if (p.status == "ok") continue;
      record_error(run, fmt::format("coll {} {} {} B {}", coll::op_name(s.op), coll::type_name(s.dtype), p.requested_bytes,
                                    p.in_place ? "in place" : "out of place"),
                   fmt::format("{}: {}", p.status, p.reason.value_or("")));
    }
  }
  run.measurements["collectives"] = collectives;
  run.config["coll"] = {{"format", std::string(coll::format_name(setup.format))},
                        {"sizes_bytes", plan.sizes},
                        {"fixed_iters", plan.fixed_iters ? nlohmann::json(*plan.fixed_iters) : nlohmann::json(nullptr)},
                        {"target_ci", plan.target_ci},
                        {"max_time_s", plan.max_time_s},
                        {"timeout_s", options.timeout_s},
                        {"notes", plan.notes}};

  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (setup.format == OutputFormat::kText) {
    report::CollectiveSummary summary;
    summary.wall_s = wall_s;
    if (setup.capture->active()) {
      for (const auto& t : runtime::transport_summary(info)) {
        summary.transport += fmt::format("{}{} ({} connections)", summary.transport.empty() ? "" : ", ", t.label,
                                         t.connections);
      }
      if (summary.transport.empty() && info.nranks == 1) summary.transport = "none (one rank)";
    }
    std::fputs(report::render_collective_footer(results, summary).c_str(), stdout);
  } else if (setup.format == OutputFormat::kJson) {
    std::fputs((run_to_json(run).dump(2) + "\n").c_str(), stdout);
  }
  if (!state.output_file.empty()) write_run_file(state.output_file, run);
  for (const auto& s : results) {
    for (const auto& p : s.points) {
      if (p.status == "timeout") {
        std::fprintf(stderr, "linkscope: error: %s %llu B timed out: %s\n", std::string(coll::op_name(s.op)).c_str(),
                     static_cast<unsigned long long>(p.requested_bytes), p.reason.value_or("").c_str());
      }
    }
  }
  const int code = exit_code_for(results, !error_text.empty() && error_text.find("NCCL_TESTS_MIN_BW") != std::string::npos);
  if (mpi_failed) {
    setup.capture->remove_files();
    setup.mpi->abort_job(code);
  }
  return code;
}

Command add_coll_command(CLI::App& parent, const std::vector<std::string>& argv) {
  auto state = std::make_shared<CollState>();
  state->argv = argv;
  auto& o = state->options;
  CLI::App* app = parent.add_subcommand(
      "coll", "NCCL collective benchmark: nccl-tests' flags and formulas, per-size median/min/max/CV from CUDA events, "
              "every size verified, NCCL's transports recorded");
  state->app = app;
  app->add_option("op", o.op, "all_reduce, all_gather, reduce_scatter, broadcast, reduce, alltoall, sendrecv, gather, scatter")
      ->capture_default_str();
  app->add_option("-b,--minbytes", o.min_bytes, "smallest size (K/M/G = 1024^n)")->capture_default_str();
  app->add_option("-e,--maxbytes", o.max_bytes, "largest size")->capture_default_str();
  app->add_option("-i,--stepbytes", o.step_bytes, "additive step when -f is 1")->capture_default_str();
  app->add_option("-f,--stepfactor", o.step_factor, "multiplicative step")->capture_default_str();
  app->add_option("-t,--nthreads", o.threads, "threads per process (run as -g t*g from one thread)")->capture_default_str();
  app->add_option("-g,--ngpus", o.gpus,
                  "GPUs (ranks) driven by this process (default: all visible; 1 per process under MPI and as *_perf)");
  app->add_option("-w,--warmup_iters", o.warmup_iters, "untimed operations before each size")->capture_default_str();
  app->add_option("-n,--iters", o.iters, "fixed number of timed iterations (default: adaptive)");
  app->add_option("-m,--agg_iters", o.agg_iters, "operations per iteration, in one NCCL group")->capture_default_str();
  app->add_option("-N,--run_cycles", o.cycles, "repeat the whole sweep")->capture_default_str();
  app->add_option("-c,--check", o.check, "verify every size (0: off)")->capture_default_str();
  app->add_option("-d,--datatype", o.datatype, "int8 uint8 int32 uint32 int64 uint64 half float double bfloat16 f8e4m3 f8e5m2 all")
      ->capture_default_str();
  app->add_option("-o,--op", o.redop, "sum prod max min avg mulsum all")->capture_default_str();
  app->add_option("-r,--root", o.root, "root rank of rooted ops (-1 or all: every rank)")->capture_default_str();
  app->add_option("-G,--cudagraph", o.graph_launches, "capture iterations in CUDA graphs (with -n: number of launches)")
      ->capture_default_str();
  app->add_option("-C,--report_cputime", o.report_cputime, "nccl-tests format: print host enqueue time instead");
  app->add_option("-a,--average", o.average, "per batch, ranks' times -> 0 rank 0, 1 average, 2 min, 3 max (default 3)");
  app->add_option("-T,--timeout", o.timeout_s, "abort when the GPUs make no progress for this many seconds (0: never)")
      ->capture_default_str();
  app->add_option("--format", state->format, "text, json (Run document) or nccl-tests")
      ->check(CLI::IsMember({"text", "json", "nccl-tests"}))
      ->capture_default_str();
  app->add_option("--output", state->output_file, "also write the Run document (JSON) to this file");
  app->add_option("--target-ci", o.target_ci, "adaptive sampling: stop when the median's 95% CI is within this fraction (0.01)");
  app->add_option("--max-time", o.max_time_s, "adaptive sampling: time budget per size in seconds (0.15)");
  app->add_flag("--in-place", o.in_place, "also measure in place (always on with --format nccl-tests)");
  app->add_flag("-q,--quiet", o.quiet, "no progress lines on stderr");
  app->add_flag("--dry-run", state->dry_run,
                "print what would run on which processes and GPUs (checks an MPI launch) without running NCCL");
  app->add_flag(coll::kAsNcclTestsFlag, state->as_nccl_tests, "nccl-tests' defaults and format")->group("");
  const char* compat_group = "nccl-tests flags accepted but not implemented";
  app->add_option("-p,--parallel_init", o.parallel_init)->group(compat_group);
  app->add_option("-z,--blocking", o.blocking)->group(compat_group);
  app->add_option("-y,--stream_null", o.stream_null)->group(compat_group);
  app->add_option("-R,--local_register", o.local_register)->group(compat_group);
  app->add_option("-x,--cta_policy", o.cta_policy)->group(compat_group);
  app->add_option("-D,--device_implementation", o.device_impl)->group(compat_group);
  app->add_option("-V,--device_cta_count", o.device_ctas)->group(compat_group);
  app->add_option("-S,--report_timestamps", o.timestamps)->group(compat_group);
  app->add_option("-M,--memory", o.memory_report)->group(compat_group);
  app->add_option("-u,--unalign", o.unalign)->group(compat_group);
  app->add_option("-I,--per_iter_timing", o.per_iter_timing)->group(compat_group);
  app->add_option("-K,--per_iter_skip", o.per_iter_skip)->group(compat_group);
  app->add_option("-J,--output_file", o.json_file)->group(compat_group);

  Command command;
  command.app = app;
  command.run = [state] { return run_coll(*state); };
  return command;
}

const CommandRegistration kRegistration{40, &add_coll_command};

}  // namespace

}  // namespace linkscope::cli
