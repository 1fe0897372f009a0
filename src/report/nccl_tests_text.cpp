#include "report/nccl_tests_text.hpp"

#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <ctime>

namespace linkscope::report {

namespace {

// printf into a std::string: the format must match nccl-tests' printf calls exactly (%g, %*.2f ...).
std::string c_format(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string c_format(const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list copy;
  va_copy(copy, args);
  const int needed = std::vsnprintf(nullptr, 0, format, copy);
  va_end(copy);
  std::string out(needed > 0 ? static_cast<std::size_t>(needed) : 0, '\0');
  if (needed > 0) std::vsnprintf(out.data(), out.size() + 1, format, args);
  va_end(args);
  return out;
}

std::string render_cell(const NcclTestsCell& cell) {
  const std::string time = nccl_tests_number(cell.time_us, 7);
  const std::string algbw = nccl_tests_number(cell.algbw_gbps, 6);
  const std::string busbw = nccl_tests_number(cell.busbw_gbps, 6);
  std::string out = cell.wrong ? c_format("  %7s  %6s  %6s  %6g", time.c_str(), algbw.c_str(), busbw.c_str(), *cell.wrong)
                               : c_format("  %7s  %6s  %6s    N/A", time.c_str(), algbw.c_str(), busbw.c_str());
  if (cell.per_iteration) {
    const auto& i = *cell.per_iteration;
    out += c_format("  %7s  %7s  %7s  %7s", nccl_tests_number(i.min_us, 7).c_str(), nccl_tests_number(i.max_us, 7).c_str(),
                    nccl_tests_number(i.p99_us, 7).c_str(), nccl_tests_number(i.cv_pct, 7).c_str());
  }
  return out;
}

constexpr const char* kTimeStampFormat = "%Y-%m-%d %H:%M:%S";

}  // namespace

std::string nccl_tests_number(double value, int width) {
  // Number of digits of the integer part (0 for values below 1), as nccl-tests counts them.
  int power = 0;
  double bound = 1;
  while (value >= bound && power < 40) {
    ++power;
    bound *= 10;
  }
  if (power < width - 2) return c_format("%*.2f", width, value);
  if (power < width - 1) return c_format("%*.1f", width, value);
  if (power < width + 1) return c_format("%*.0f", width, value);
  if (width >= 7) return c_format("%*.1e", width, value);
  return c_format("%*.0e", width, value);
}

std::string render_nccl_tests_preamble(const NcclTestsPreamble& p) {
  std::string out;
  out += c_format("# nccl-tests version %s nccl-headers=%d nccl-library=%d\n", kNcclTestsFormatVersion,
                  p.nccl_headers_code, p.nccl_library_code);
  out += c_format("# Collective test starting: %s\n", p.program.c_str());
  out += c_format("# nThread %d nGpus %d minBytes %llu maxBytes %llu step: %llu(%s) warmup iters: %d iters: %d agg iters: "
                  "%d validation: %d graph: %d unalign: %d\n",
                  p.threads, p.gpus_per_thread, static_cast<unsigned long long>(p.min_bytes),
                  static_cast<unsigned long long>(p.max_bytes), static_cast<unsigned long long>(p.step),
                  p.step_is_factor ? "factor" : "bytes", p.warmup_iters, p.iters, p.agg_iters, p.validation,
                  p.graph_launches, p.unalign);
  if (p.blocking == 1) out += "# Blocking Enabled: wait and barrier after each inner iteration (-m) \n";
  if (p.blocking == 2) out += "# Blocking Enabled: wait after each inner iteration (-m), no barrier \n";
  if (p.blocking == 3) {
    out += "# Blocking Enabled: wait and barrier after each outer iteration (-n); time excludes barrier \n";
  }
  if (p.per_iteration) {
    out += "# Per-Iteration Report: CUDA event timing; i_* uses max over process rows";
    if (p.per_iteration_skip != 0) out += c_format("; summary skips first %d iterations", p.per_iteration_skip);
    out += " \n";
  }
  if (p.parallel_init) out += "# Parallel Init Enabled: threads call into NcclInitRank concurrently \n";
  out += "#\n";
  out += "# Using devices\n";
  for (const auto& d : p.devices) {
    out += c_format("#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s\n", d.rank, d.group, d.pid,
                    d.host.c_str(), d.cuda_device, d.pci_domain, d.pci_bus, d.pci_device, d.name.c_str());
  }
  if (p.reduced_max_bytes) {
    out += c_format("#\n# Reducing maxBytes to %llu due to memory limitation\n",
                    static_cast<unsigned long long>(*p.reduced_max_bytes));
  }
  return out;
}

std::string render_nccl_tests_header(const NcclTestsColumns& columns) {
  const char* time = columns.cputime ? "cputime" : "time";
  const char* stamp = columns.timestamps ? "timestamp" : "";
  const int pad = columns.timestamps ? 19 : 0;
  const char* stamp_format = columns.timestamps ? kTimeStampFormat : "";
  std::string out = "#\n";
  if (columns.per_iteration) {
    out += c_format("# %10s  %12s  %8s  %6s  %6s              out-of-place (+ per-iteration)                           "
                    "     in-place (+ per-iteration)\n",
                    "", "", "", "", "");
    out += c_format("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  %6s  %6s  %7s  %7s  "
                    "%7s  %7s %*s\n",
                    "size", "count", "type", "redop", "root", time, "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99",
                    "i_cv%", time, "algbw", "busbw", "#wrong", "i_min", "i_max", "i_p99", "i_cv%", pad, stamp);
    out += c_format("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  %6s  %6s  %7s  %7s  "
                    "%7s  %7s %*s\n",
                    "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)", "(us)",
                    "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)", pad, stamp_format);
    return out;
  }
  out += c_format("# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n", "", "",
                  "", "", "");
  out += c_format("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "size", "count", "type",
                  "redop", "root", time, "algbw", "busbw", "#wrong", time, "algbw", "busbw", "#wrong", pad, stamp);
  out += c_format("# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "(B)", "(elements)", "", "",
                  "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", pad, stamp_format);
  return out;
}

std::string nccl_tests_now() {
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  localtime_r(&now, &local);
  char text[128];
  std::strftime(text, sizeof text, kTimeStampFormat, &local);
  return text;
}

std::string nccl_tests_memory(std::int64_t bytes) {
  double amount = static_cast<double>(bytes);
  const char* unit = " B";
  const double kib = 1024.0;
  if (std::fabs(amount) >= kib * kib * kib) {
    unit = " GB";
    amount /= kib * kib * kib;
  } else if (std::fabs(amount) >= kib * kib) {
    unit = " MB";
    amount /= kib * kib;
  } else if (std::fabs(amount) >= kib) {
    unit = " KB";
    amount /= kib;
  }
  const int precision = std::fabs(amount) < 10.0 ? 2 : std::fabs(amount) < 100.0 ? 1 : 0;
  return c_format("%.*f%s", precision, amount, unit);
}

std::string render_nccl_tests_row(const NcclTestsRow& row) {
  const std::string root = c_format("%6i", row.root);
  std::string out = c_format("%12llu  %12llu  %8s  %6s  %6s", static_cast<unsigned long long>(row.size_bytes),
                             static_cast<unsigned long long>(row.count), row.type.c_str(), row.redop.c_str(),
                             root.c_str());
  for (const NcclTestsCell* cell : {&row.out_of_place, &row.in_place}) {
    for (const auto& line : cell->lines_before) out += line + "\n";
    out += render_cell(*cell);
  }
  if (row.timestamp) out += c_format("%21s", row.timestamp->c_str());
  out += "\n";
  return out;
}

bool nccl_tests_bandwidth_failed(const NcclTestsFooter& footer) {
  return footer.minimum_busbw && footer.average_busbw_gbps < *footer.minimum_busbw * 0.9;
}

std::string render_nccl_tests_footer(const NcclTestsFooter& footer) {
  std::string out;
  out += c_format("# %-20s : %d %s\n", "Out of bounds values", footer.out_of_bounds, footer.out_of_bounds ? "FAILED" : "OK");
  const char* check = !footer.minimum_busbw ? "" : (nccl_tests_bandwidth_failed(footer) ? "FAILED" : "OK");
  out += c_format("# %-20s : %g %s\n", "Avg bus bandwidth", footer.average_busbw_gbps, check);
  out += "#\n";
  out += c_format("# Collective test concluded: %s\n", footer.program.c_str());
  if (footer.memory) {
    const auto& m = *footer.memory;
    out += c_format("# %-20s : Initialization %s | User-Allocated %s | Collective %s | Total  %s\n", "GPU memory usage",
                    nccl_tests_memory(m.initialization).c_str(), nccl_tests_memory(m.user_allocated).c_str(),
                    nccl_tests_memory(m.collective).c_str(),
                    nccl_tests_memory(m.initialization + m.user_allocated + m.collective).c_str());
  }
  out += "#\n";
  if (footer.error && !footer.error->empty()) {
    out += c_format("# error: %s\n", footer.error->c_str());
  } else {
    out += "\n";
  }
  return out;
}

}  // namespace linkscope::report
