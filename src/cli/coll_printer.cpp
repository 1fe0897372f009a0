#include "cli/coll_printer.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <unistd.h>

#include <fmt/format.h>

#include "core/size.hpp"
#include "core/terminal_text.hpp"
#include "plan/collective_run_plan.hpp"
#include "platform/nccl_version.hpp"
#include "report/collective_text.hpp"
#include "report/nccl_tests_text.hpp"
#include "runtime/nccl_debug_capture.hpp"
#include "runtime/nccl_log.hpp"

namespace linkscope::cli {

namespace {

using coll::OutputFormat;

report::NcclTestsPreamble nccl_tests_preamble(const coll::CollOptions& options, const measure::CollectiveSetup& setup,
                                              const std::vector<model::DeviceRecord>& devices) {
  const coll::CollPlan& plan = setup.plan;
  report::NcclTestsPreamble p;
  p.nccl_headers_code = platform::nccl_headers_version_code();
  p.nccl_library_code = platform::nccl_library_info().version_code;
  p.program = std::string(coll::op_name(plan.op)) + "_perf";
  p.gpus_per_thread = plan.gpus_per_process;
  p.min_bytes = parse_size(options.min_bytes);
  p.max_bytes = parse_size(options.max_bytes);
  p.step_is_factor = options.step_factor > 1;
  p.step = p.step_is_factor ? static_cast<std::uint64_t>(options.step_factor) : parse_size(options.step_bytes);
  p.warmup_iters = plan.warmup_iters;
  p.iters = plan.fixed_iters.value_or(0);
  p.agg_iters = plan.agg_iters;
  p.validation = options.check;
  p.graph_launches = plan.graph_launches;
  p.unalign = plan.unalign_elements;
  p.blocking = static_cast<int>(plan.blocking);
  p.per_iteration = plan.per_iteration_timing;
  p.per_iteration_skip = plan.per_iteration_skip;
  p.parallel_init = plan.parallel_init;
  for (const auto& d : devices) {
    p.devices.push_back({d.rank, d.group, d.pid, d.host, d.cuda_device, d.pci_domain, d.pci_bus, d.pci_device, d.name});
  }
  p.reduced_max_bytes = setup.reduced_max_bytes;
  return p;
}

void note(const std::string& text) { print_stderr_line("linkscope: note: " + text); }

// Every line of the text and nccl-tests formats: GPU and host names and NCCL's error texts are shown, not obeyed.
void print(const std::string& text) { std::fputs(visible_controls(text).c_str(), stdout); }

}  // namespace

CollPrinter::CollPrinter(coll::OutputFormat format, bool enabled, const coll::CollOptions& options,
                         std::vector<std::string> args)
    : format_(format), enabled_(enabled), options_(options), args_(std::move(args)) {}

CollPrinter::~CollPrinter() {
  if (json_file_ != nullptr) std::fclose(json_file_);
}

void CollPrinter::on_setup(const measure::CollectiveSetup& setup, const runtime::NcclDebugCapture& capture) {
  setup_ = setup;
  sampling_ = report::render_sampling_text(coll_sampling_of(setup.plan));
  if (!enabled_) return;
  for (const auto& text : setup.plan.notes) note(text);
  if (!capture.active()) note(capture.reason());
  if (format_ != OutputFormat::kNcclTests) {
    for (const auto& text : coll::rounding_notes(setup.plan, setup.nranks)) note(text);
  }
}

void CollPrinter::on_started(const std::vector<model::DeviceRecord>& devices) {
  if (!enabled_ || format_ != OutputFormat::kNcclTests) return;
  const coll::CollPlan& plan = setup_.plan;
  if (!plan.json_file.empty()) open_json_file(plan.json_file);
  const report::NcclTestsPreamble preamble = nccl_tests_preamble(options_, setup_, devices);
  json_.preamble = preamble;
  print(report::render_nccl_tests_preamble(preamble));
  print(report::render_nccl_tests_header({plan.report_cputime, plan.per_iteration_timing, plan.timestamps}));
}

void CollPrinter::open_json_file(const std::string& requested) {
  // nccl-tests never overwrites: FILE, else FILE.0, FILE.1 ...; a path it cannot create is skipped with a line.
  const std::string path = report::nccl_tests_json_path(requested, [](const std::string& candidate) {
    std::error_code error;
    return std::filesystem::exists(candidate, error);
  });
  json_file_ = std::fopen(path.c_str(), "wx");
  if (json_file_ == nullptr) {
    print(fmt::format("# skipping json output; {} not accessible\n", visible_field(path)));
    return;
  }
  print(fmt::format("# Writing JSON output to {}\n", visible_field(path)));
  json_.start_time = report::nccl_tests_now();
  json_.args = args_;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) json_.env.emplace_back(*e);
}

void CollPrinter::on_size(const model::CollectiveSeries& series, const std::vector<model::CollectivePoint>& points) {
  if (!enabled_) return;
  for (const auto& p : points) {
    if (p.wrong && *p.wrong > 0) ++out_of_bounds_;
  }
  if (format_ == OutputFormat::kText) {
    if (series.points.size() == points.size()) {  // the first size of a series
      if (series_printed_++ > 0) std::fputs("#\n", stdout);
      print(report::render_collective_header(series, sampling_));
    }
    for (const auto& p : points) print(report::render_collective_row(p));
  } else if (format_ == OutputFormat::kNcclTests) {
    print_nccl_tests_row(series, points);
  } else if (!options_.quiet) {
    for (const auto& p : points) {
      std::fprintf(stderr, "linkscope: %s %s %llu B %s: %s\n", std::string(coll::op_name(series.op)).c_str(),
                   std::string(coll::type_name(series.dtype)).c_str(), static_cast<unsigned long long>(p.bytes),
                   p.in_place ? "in place" : "out of place",
                   p.busbw_gbps ? fmt::format("busbw {:.2f} GB/s", *p.busbw_gbps).c_str() : p.status.c_str());
    }
  }
  std::fflush(stdout);
}

void CollPrinter::print_nccl_tests_row(const model::CollectiveSeries& s, const std::vector<model::CollectivePoint>& points) {
  const model::CollectivePoint* out = nullptr;
  const model::CollectivePoint* in = nullptr;
  for (const auto& p : points) (p.in_place ? in : out) = &p;
  for (const auto* p : {out, in}) {
    if (p != nullptr && !p->time) {
      print(fmt::format("# {} B {}: {}: {}\n", p->bytes, p->in_place ? "in-place" : "out-of-place", p->status,
                        visible_field(p->reason.value_or(""))));
      return;
    }
  }
  if (out == nullptr || in == nullptr) return;
  const auto cell = [&](const model::CollectivePoint& p) {
    report::NcclTestsCell c;
    // nccl-tests reports the mean time of its iterations (bandwidth from it), or with -C the host time spent
    // enqueueing one operation.
    const double time_us = p.time->mean_us;
    c.time_us = options_.report_cputime ? p.cputime_us.value_or(0) : time_us;
    c.per_iteration = p.per_iteration;
    const auto bw =
        coll::collective_bandwidth(s.op, p.count, p.bytes, coll::type_size(s.dtype), time_us * 1e-6, s.nranks);
    c.algbw_gbps = bw.algbw_gbps;
    c.busbw_gbps = bw.busbw_gbps;
    if (p.wrong) c.wrong = static_cast<double>(*p.wrong);
    const coll::CollPlan& plan = setup_.plan;
    if (s.op == coll::CollectiveOp::kAlltoAllv && plan.alltoallv.print_summary) {
      const std::uint64_t total = p.count * static_cast<std::uint64_t>(s.nranks) * coll::type_size(s.dtype);
      c.lines_before = coll::alltoallv_summary_lines(plan.alltoallv, s.nranks, total, time_us * 1e-6);
    }
    busbw_sum_ += bw.busbw_gbps;
    ++cells_;
    return c;
  };
  report::NcclTestsRow row;
  row.size_bytes = out->bytes;
  row.count = out->count;
  row.type = std::string(coll::type_name(s.dtype));
  row.redop = coll::nccl_tests_redop_column(s.op, s.redop);
  row.root = coll::op_is_rooted(s.op) ? s.root : -1;
  row.out_of_place = cell(*out);
  row.in_place = cell(*in);
  if (setup_.plan.timestamps) row.timestamp = report::nccl_tests_now();
  print(report::render_nccl_tests_row(row));
  if (json_file_ != nullptr) json_.rows.push_back(std::move(row));
}

bool CollPrinter::print_nccl_tests_footer(const std::vector<model::CollectiveSeries>& results, const Environment& env,
                                          const std::optional<measure::MemoryUse>& memory) {
  if (!enabled_ || format_ != OutputFormat::kNcclTests) return false;
  report::NcclTestsFooter footer;
  footer.program = std::string(coll::op_name(setup_.plan.op)) + "_perf";
  footer.out_of_bounds = out_of_bounds_;
  footer.average_busbw_gbps = cells_ == 0 ? 0.0 : busbw_sum_ / cells_;
  if (const auto min_bw = env.get("NCCL_TESTS_MIN_BW")) footer.minimum_busbw = std::atof(min_bw->c_str());
  std::string first_error;  // the first failing point that says why
  for (const auto& s : results) {
    for (const auto& p : s.points) {
      if ((p.status == "timeout" || p.status == "error") && first_error.empty()) first_error = p.reason.value_or("");
    }
  }
  if (!first_error.empty()) footer.error = first_error;
  if (setup_.plan.memory_report && memory) {
    footer.memory = report::NcclTestsFooter::Memory{memory->initialization, memory->user_allocated, memory->collective};
  }
  print(report::render_nccl_tests_footer(footer));
  if (json_file_ != nullptr) {
    json_.cputime = setup_.plan.report_cputime;
    json_.footer = footer;
    json_.errors = {first_error};  // nccl-tests records NCCL's last error, an empty string when there was none
    json_.end_time = report::nccl_tests_now();
    const std::string text = report::render_nccl_tests_json(json_);
    const bool written = std::fwrite(text.data(), 1, text.size(), json_file_) == text.size();
    const bool closed = std::fclose(json_file_) == 0;
    json_file_ = nullptr;
    if (!written || !closed) std::fprintf(stderr, "linkscope: warning: the -J file could not be written completely\n");
  }
  return report::nccl_tests_bandwidth_failed(footer);
}

void CollPrinter::print_text_footer(const model::Run& run) {
  if (!enabled_ || format_ != OutputFormat::kText) return;
  // The footer `linkscope report` prints for the saved run.
  print(report::render_collective_footer(*run.measurements.collectives, report::collective_summary(run)));
}

model::CollSampling coll_sampling_of(const coll::CollPlan& plan) {
  model::CollSampling sampling;
  if (plan.fixed_iters) sampling.fixed_iters = static_cast<std::uint64_t>(*plan.fixed_iters);
  sampling.graph_launches = plan.graph_launches;
  sampling.target_ci = plan.target_ci;
  sampling.max_time_s = plan.max_time_s;
  return sampling;
}

}  // namespace linkscope::cli
